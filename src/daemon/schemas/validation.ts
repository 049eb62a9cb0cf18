import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { UUID_PATTERN } from '../../util/uuid.js';
import { InvalidError } from '../errors.js';

/** A UUID-valued string property. */
export const UUID_SCHEMA = { type: 'string', pattern: UUID_PATTERN.source } as const;
/** A name: any non-empty string (GNS3 node and port names). */
export const NAME_SCHEMA = { type: 'string', minLength: 1 } as const;

/** A JSON schema as plain data. */
export type JsonSchema = Record<string, unknown>;

/** Type-only key under which a schema made by `schema()` carries the type of the values it accepts. */
declare const valueType: unique symbol;

/** A schema that names the TypeScript type of what it validates (`route()` types its handler's body so). */
export type TypedSchema<T> = JsonSchema & { readonly [valueType]?: T };

/** The TypeScript type of the values a schema literal accepts (the subset of JSON Schema this daemon uses). */
export type FromSchema<S> =
  S extends { readonly enum: readonly (infer E)[] } ? E :
  S extends { readonly anyOf: readonly (infer A)[] } ? FromSchema<A> :
  S extends { readonly oneOf: readonly (infer O)[] } ? FromSchema<O> :
  S extends { readonly type: infer T } ? ValueOfType<T extends readonly (infer U)[] ? U : T, S> :
  unknown;

type ValueOfType<T, S> =
  T extends 'string' ? string :
  T extends 'integer' | 'number' ? number :
  T extends 'boolean' ? boolean :
  T extends 'null' ? null :
  T extends 'array' ? (S extends { readonly items: infer I } ? FromSchema<I>[] : unknown[]) :
  T extends 'object' ? ObjectOf<S> :
  unknown;

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Flatten<
      { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: FromSchema<P[K]> } &
      { -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: FromSchema<P[K]> } &
      (S extends { readonly additionalProperties: false } ? unknown : { [extra: string]: unknown })
    >
  : S extends { readonly additionalProperties: infer A }
    ? (A extends false ? Record<string, never> : A extends object ? Record<string, FromSchema<A>> : Record<string, unknown>)
    : Record<string, unknown>;

type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;
type Flatten<T> = { [K in keyof T]: T[K] };

/** A schema literal, typed: `route()` infers its handler's body from it, and `FromSchema<typeof X>` names its values. */
export function schema<const S extends JsonSchema>(definition: S): S & { readonly [valueType]?: FromSchema<S> } {
  return definition;
}

const ajv = new Ajv({ allErrors: false, strict: false });
ajv.addFormat('uuid', UUID_PATTERN);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Validates `value` against `schema`; throws InvalidError whose message names the offending field. The result has the schema's type (unknown for an untyped schema). */
export function validate<T = unknown>(schema: TypedSchema<T>, value: unknown, what = 'request body'): T {
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

type UpdateOf<S> = { [K in keyof S as K extends 'required' | typeof valueType ? never : K]: S[K] };

/** The update schema of an object: the same properties, none required (GNS3 does it so). */
export function updateSchemaOf<const S extends JsonSchema & { readonly type: 'object' }>(definition: S): UpdateOf<S> & { readonly [valueType]?: FromSchema<UpdateOf<S>> };
export function updateSchemaOf(definition: JsonSchema): JsonSchema;
export function updateSchemaOf(definition: JsonSchema): JsonSchema {
  const { required: _required, ...rest } = definition;
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
