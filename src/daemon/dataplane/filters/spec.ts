import { InvalidError } from '../../errors.js';
import type { LinkFilters } from '../types.js';
import { AVAILABLE_FILTERS, parameterRange } from './catalog.js';

/** LinkFilters normalised to plain numbers (0 = off) and a list of bpf expressions. */
export interface FilterSpec {
  frequencyDrop: number;
  packetLoss: number;
  delayMs: number;
  jitterMs: number;
  corrupt: number;
  bpf: string[];
  rateKbps: number;
  duplicate: number;
}

export const NO_FILTERS: FilterSpec = {
  frequencyDrop: 0, packetLoss: 0, delayMs: 0, jitterMs: 0, corrupt: 0, bpf: [], rateKbps: 0, duplicate: 0,
};

/** True when the spec would let every frame through untouched. */
export function isPassThrough(s: FilterSpec): boolean {
  return !s.frequencyDrop && !s.packetLoss && !s.delayMs && !s.jitterMs && !s.corrupt
    && !s.bpf.length && !s.rateKbps && !s.duplicate;
}

function num(filters: LinkFilters, name: keyof LinkFilters, index: number): number {
  const { minimum: min, maximum: max } = parameterRange(name, index);
  const list = filters[name];
  if (list === undefined || list === null) return 0;
  if (!Array.isArray(list)) throw new InvalidError(`filter ${name} must be a list`);
  if (list.length <= index) return 0;
  const v = list[index];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidError(`filter ${name}[${index}] must be a number`);
  if (v < min || v > max) throw new InvalidError(`filter ${name}[${index}] must be between ${min} and ${max} (got ${v})`);
  return v;
}

/** Validates GNS3 link filters against the catalogue's ranges and normalises them. */
export function parseFilters(filters: LinkFilters | undefined): FilterSpec {
  if (!filters) return NO_FILTERS;
  if (typeof filters !== 'object') throw new InvalidError('filters must be an object');
  const known = new Set<string>(AVAILABLE_FILTERS.map((f) => f.type));
  for (const key of Object.keys(filters)) {
    if (!known.has(key)) throw new InvalidError(`unknown filter "${key}" (known: ${[...known].join(', ')})`);
  }
  const frequencyDrop = num(filters, 'frequency_drop', 0);
  if (!Number.isInteger(frequencyDrop)) throw new InvalidError('filter frequency_drop[0] must be an integer');
  const delayMs = num(filters, 'delay', 0);
  // GNS3 semantics: the first value 0 turns the filter off, jitter included.
  const jitterMs = delayMs ? num(filters, 'delay', 1) : 0;
  return {
    frequencyDrop,
    packetLoss: num(filters, 'packet_loss', 0),
    delayMs,
    jitterMs,
    corrupt: num(filters, 'corrupt', 0),
    bpf: bpfExpressions(filters.bpf),
    rateKbps: num(filters, 'rate', 0),
    duplicate: num(filters, 'duplicate', 0),
  };
}

function bpfExpressions(list: unknown): string[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new InvalidError('filter bpf must be a list');
  const out: string[] = [];
  for (const item of list) {
    if (item === 0) continue; // a first value of 0 means off, as for the other filters
    if (typeof item !== 'string') throw new InvalidError('filter bpf must hold strings');
    for (const line of item.split('\n')) {
      const expr = line.trim();
      if (expr) out.push(expr);
    }
  }
  return out;
}
