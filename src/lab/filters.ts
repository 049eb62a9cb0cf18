import type { LinkFilters } from '../client/links.js';

/** Filters as comparable text: numbers as numbers, strings trimmed, filters that are off left out. */
export function normalFilters(filters: LinkFilters | Record<string, unknown[]> | undefined): Record<string, (number | string)[]> {
  const out: Record<string, (number | string)[]> = {};
  for (const type of Object.keys(filters ?? {}).sort()) {
    const values = ((filters as Record<string, unknown[]>)[type] ?? []).map((v) => (typeof v === 'string' && !/^-?\d+$/.test(v.trim()) ? v.trim() : Number(v)));
    if (values.length && values[0] !== 0 && values[0] !== '') out[type] = values;
  }
  return out;
}

/** How a filter reads in a plan line: `delay 20`, `delay 20±5`, `bpf "icmp"`. */
export function filterValue(type: string, values: (number | string)[] | undefined): string {
  if (!values) return 'off';
  if (type === 'delay') return values[1] ? `${values[0]}±${values[1]}` : String(values[0]);
  if (type === 'bpf') return JSON.stringify(values[0]);
  return String(values[0]);
}

export function filterWords(filters: Record<string, unknown[]>): string[] {
  const normal = normalFilters(filters);
  return Object.keys(normal).map((type) => `${type} ${filterValue(type, normal[type])}`);
}
