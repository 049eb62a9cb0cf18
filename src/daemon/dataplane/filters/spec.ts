import type { LinkFilters } from '../types.js';

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

/**
 * The dataplane's own form of link filters. They were checked once where they entered the daemon
 * (validateFilters, against the catalogue), so this only normalises: a missing value is 0 (off).
 */
export function parseFilters(filters: LinkFilters | undefined): FilterSpec {
  if (!filters) return NO_FILTERS;
  const value = (list: number[] | undefined, index = 0) => list?.[index] ?? 0;
  const delayMs = value(filters.delay);
  return {
    frequencyDrop: value(filters.frequency_drop),
    packetLoss: value(filters.packet_loss),
    delayMs,
    // GNS3 semantics: the first value 0 turns the filter off, jitter included.
    jitterMs: delayMs ? value(filters.delay, 1) : 0,
    corrupt: value(filters.corrupt),
    bpf: (filters.bpf ?? []).flatMap((item) => item.split('\n').map((line) => line.trim()).filter(Boolean)),
    rateKbps: value(filters.rate),
    duplicate: value(filters.duplicate),
  };
}
