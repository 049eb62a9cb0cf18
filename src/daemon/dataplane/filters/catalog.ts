import type { LinkFilters } from '../types.js';
import { InvalidError } from '../../errors.js';

interface FilterParameter {
  name: string;
  type: 'int' | 'text';
  minimum?: number;
  maximum?: number;
  unit?: string;
}

interface FilterDefinition {
  type: keyof LinkFilters;
  name: string;
  description: string;
  parameters: FilterParameter[];
}

/** The filters a link supports: GNS3's five, plus rate and duplicate (emuctl extensions). The one catalogue: the API lists it (available_filters), and validateFilters checks against its ranges where filters enter the daemon. */
export const AVAILABLE_FILTERS: FilterDefinition[] = [
  {
    type: 'frequency_drop',
    name: 'Frequency drop',
    description: 'It will drop everything with a -1 frequency, drop every Nth packet with a positive frequency, or drop nothing',
    parameters: [{ name: 'Frequency', minimum: -1, maximum: 32767, type: 'int', unit: 'th packet' }],
  },
  {
    type: 'packet_loss',
    name: 'Packet loss',
    description: 'The percentage represents the chance for a packet to be lost',
    parameters: [{ name: 'Chance', minimum: 0, maximum: 100, type: 'int', unit: '%' }],
  },
  {
    type: 'delay',
    name: 'Delay',
    description: 'Delay packets in milliseconds. You can add jitter in milliseconds (+/-) of the delay',
    parameters: [
      { name: 'Latency', minimum: 0, maximum: 32767, unit: 'ms', type: 'int' },
      { name: 'Jitter (-/+)', minimum: 0, maximum: 32767, unit: 'ms', type: 'int' },
    ],
  },
  {
    type: 'corrupt',
    name: 'Corrupt',
    description: 'The percentage represents the chance for a packet to be corrupted',
    parameters: [{ name: 'Chance', minimum: 0, maximum: 100, unit: '%', type: 'int' }],
  },
  {
    type: 'bpf',
    name: 'Berkeley Packet Filter (BPF)',
    description: 'This filter will drop any packet matching a BPF expression. Put one expression per line',
    parameters: [{ name: 'Filters', type: 'text' }],
  },
  {
    type: 'rate',
    name: 'Rate limit',
    description: 'Shape the traffic to this bandwidth in kbit/s (emuctl extension); frames beyond a short queue are dropped',
    parameters: [{ name: 'Rate', minimum: 0, maximum: 10_000_000, unit: 'kbit/s', type: 'int' }],
  },
  {
    type: 'duplicate',
    name: 'Duplicate',
    description: 'The percentage represents the chance for a packet to be sent twice (emuctl extension)',
    parameters: [{ name: 'Chance', minimum: 0, maximum: 100, unit: '%', type: 'int' }],
  },
];

/** Checks filter names and parameter ranges; returns the filters with "off" ones (0 or empty) removed. */
export function validateFilters(filters: Record<string, unknown>): LinkFilters {
  const out: Record<string, unknown[]> = {};
  for (const [type, values] of Object.entries(filters)) {
    const def = AVAILABLE_FILTERS.find((f) => f.type === type);
    if (!def) throw new InvalidError(`Unknown filter '${type}' (known: ${AVAILABLE_FILTERS.map((f) => f.type).join(', ')})`);
    if (!Array.isArray(values)) throw new InvalidError(`filters.${type} must be a list of parameters`);
    if (values.length === 0) continue;
    if (values.length > def.parameters.length) throw new InvalidError(`filters.${type} takes at most ${def.parameters.length} parameter(s)`);
    const parsed = values.map((value, i) => checkParameter(type, def.parameters[i], value));
    if (def.parameters[0].type === 'int' && parsed[0] === 0) continue;
    if (def.parameters[0].type === 'text' && String(parsed[0]).trim() === '') continue;
    out[type] = parsed;
  }
  return out as LinkFilters;
}

function checkParameter(type: string, param: FilterParameter, value: unknown): number | string {
  if (param.type === 'text') {
    if (typeof value !== 'string') throw new InvalidError(`filters.${type}: ${param.name} must be text`);
    return value;
  }
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new InvalidError(`filters.${type}: ${param.name} must be an integer`);
  if (n < param.minimum! || n > param.maximum!) throw new InvalidError(`filters.${type}: ${param.name} ${n} is out of range ${param.minimum}..${param.maximum}`);
  return n;
}
