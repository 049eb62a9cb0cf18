import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { UUID_PATTERN } from '../../util/uuid.js';
import { InvalidError } from '../errors.js';

/** A UUID-valued string property. */
export const UUID_SCHEMA = { type: 'string', pattern: UUID_PATTERN.source };

/** A JSON schema as plain data. */
export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv({ allErrors: false, strict: false });
ajv.addFormat('uuid', UUID_PATTERN);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Validates `value` against `schema`; throws InvalidError whose message names the offending field. */
export function validate<T>(schema: JsonSchema, value: unknown, what = 'request body'): T {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = ajv.compile(schema)));
  if (!check(value)) throw new InvalidError(`Invalid ${what}: ${describe(check.errors?.[0])}`);
  return value as T;
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'does not match the schema';
  const path = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : '';
  const at = (field: string) => (field ? `'${field}'` : 'body');
  switch (error.keyword) {
    case 'required':
      return `'${join(path, (error.params as { missingProperty: string }).missingProperty)}' is a required property`;
    case 'additionalProperties':
      return `additional property '${join(path, (error.params as { additionalProperty: string }).additionalProperty)}' is not allowed`;
    case 'enum':
      return `${at(path)} must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at(path)} ${error.message ?? 'is invalid'}`;
  }
}

function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

/** The update schema of an object: the same properties, none required (GNS3 does it so). */
export function updateSchemaOf(schema: JsonSchema): JsonSchema {
  const { required: _required, ...rest } = schema;
  return rest;
}

/** Converts query-string values to the types a schema declares, so they can be merged into a body. */
export function coerceQuery(schema: JsonSchema | undefined, query: Record<string, unknown>): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, { type?: string | string[] }>;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    if (typeof raw !== 'string') continue;
    const types = [props[key]?.type ?? 'string'].flat();
    out[key] = coerceOne(raw, types);
  }
  return out;
}

function coerceOne(raw: string, types: string[]): unknown {
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (types.includes('null') && raw === 'null') return null;
  return raw;
}
