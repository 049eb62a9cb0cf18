import type { ErrorObject } from 'ajv';
import { LAB_FILE_SCHEMA } from './file-schema.js';
import type { LabFileError, Locator } from './locate.js';

/** The one error to report from a failed schema check: the deepest, in words a lab author reads. */
export function schemaError(errors: ErrorObject[], where: Locator): LabFileError {
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const depth = (e: ErrorObject) => e.instancePath.split('/').length + (e.keyword === 'additionalProperties' ? 1 : 0);
  const best = useful.reduce((a, b) => (depth(b) > depth(a) ? b : a), useful[0] ?? errors[0]);
  const path: (string | number)[] = best.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const field = path.length ? path.join('.') : 'the file';
  const p = best.params as Record<string, any>;
  switch (best.keyword) {
    case 'additionalProperties': {
      const known = Object.keys(schemaAt(path) ?? {});
      return where.keyError(path, p.additionalProperty, `unknown key "${p.additionalProperty}"${field === 'the file' ? '' : ` in ${field}`}${known.length ? `; expected one of: ${known.join(', ')}` : ''}`);
    }
    case 'required':
      return where.error(path, `${field} needs ${p.missingProperty}:`);
    case 'propertyNames':
      return where.keyError(path, p.propertyName, `bad name "${p.propertyName}" in ${field}`);
    case 'pattern': {
      const value = String(where.value(path));
      // A plain node name passes the generated-lab form, so only a link of one end gets here with one.
      if (/^links\.\d+\.\d+$/.test(field) && /^[^\s:,]+$/.test(value)) return where.error(path.slice(0, -1), `a link has at least two ends: device nodes ([R1, R2]) or ports ([PC1:0/0, SW1:0])`);
      if (/endpoints|^links/.test(field)) return where.error(path, `bad endpoint "${value}": expected NODE:ADAPTER/PORT, NODE:PORT or NODE:PORT-NAME (e.g. PC1:0/0)`);
      if (path.at(-1) === 'ip') return where.error(path, `bad CIDR "${value}": expected an IPv4 address/prefix length, e.g. 10.0.0.1/24`);
      if (/^nodes\.[^.]+\.ports$/.test(field)) return where.error(path, `bad port "${value}": expected a port number or a range like 0-3`);
      return where.error(path, `bad ${field} "${value}"`);
    }
    case 'enum':
      return where.error(path, `${field} must be one of: ${(p.allowedValues as unknown[]).join(', ')}`);
    case 'minimum':
    case 'maximum':
      return where.error(path, `${field} is out of range: ${best.message}${path.at(-1) === 'vlan' ? ' (VLANs are 1-4094)' : ''}`);
    default:
      return where.error(path, `${field} ${best.message}`);
  }
}

/** The properties the schema allows for the object at `path`, to list them in a message. */
function schemaAt(path: (string | number)[]): Record<string, unknown> | undefined {
  const s = LAB_FILE_SCHEMA as any;
  if (path.length === 0) return s.properties;
  if (path[0] === 'defaults') return s.properties.defaults.properties;
  if (path[0] === 'nodes' && path.length === 2) return s.properties.nodes.additionalProperties.properties;
  if (path[0] === 'nodes' && path.length === 4) return s.properties.nodes.additionalProperties.properties.ports.additionalProperties.properties;
  if (path[0] === 'links' && path.length === 2) return s.properties.links.items.anyOf[2].properties;
  if (path[0] === 'tests' && path.length === 2) return s.properties.tests.items.properties;
  if (path[0] === 'tests' && path.length === 3) return s.properties.tests.items.properties[path[2]]?.properties;
  if (path[0] === 'links' && path[2] === 'filters') return s.properties.links.items.anyOf[2].properties.filters.properties;
  return undefined;
}
