import { InvalidArgumentError } from 'commander';
import { UsageError } from '../../cli/errors.js';
import type { LinkFilters } from '../../client/links.js';

/** Filter changes asked for on the command line (undefined: leave as is; 0 or '': turn off). */
export interface FilterChanges {
  delay?: number;
  jitter?: number;
  loss?: number;
  corrupt?: number;
  frequencyDrop?: number;
  /** Expressions, one per --bpf; [''] turns the filter off. */
  bpf?: string[];
  rate?: number;
  duplicate?: number;
}

/** A commander parser for an integer in [min, max] (max optional: the server knows its own limits). */
export function integerIn(what: string, min: number, max?: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || n < min || (max !== undefined && n > max)) {
      throw new InvalidArgumentError(`expected ${what}: an integer ${max === undefined ? `>= ${min}` : `${min}-${max}`}.`);
    }
    return n;
  };
}

/** The GNS3 filter types the changes set to a value (turning a filter off needs none offered). */
export function filterTypesSet(changes: FilterChanges): string[] {
  const on = (value: number | string[] | undefined) => value !== undefined && value !== 0
    && !(Array.isArray(value) && value.every((e) => e.trim() === ''));
  const types: [string, number | string[] | undefined][] = [
    ['delay', changes.delay ?? (changes.jitter ? changes.jitter : undefined)],
    ['packet_loss', changes.loss],
    ['corrupt', changes.corrupt],
    ['frequency_drop', changes.frequencyDrop],
    ['bpf', changes.bpf],
    ['rate', changes.rate],
    ['duplicate', changes.duplicate],
  ];
  return types.filter(([, value]) => on(value)).map(([type]) => type);
}

/** True when no filter option was given. */
export function noChanges(changes: FilterChanges): boolean {
  return Object.values(changes).every((value) => value === undefined);
}

/**
 * The link's new filters: its current ones (none with `clear`) with the changes applied.
 * A 0 (or an empty bpf) turns a filter off; --delay keeps the current jitter and --jitter the
 * current delay. PUT replaces a link's whole filter set, hence the merge here.
 */
export function mergeFilters(current: LinkFilters, changes: FilterChanges, clear: boolean): LinkFilters {
  const filters: LinkFilters = clear ? {} : { ...current };
  const set = (type: string, values: (number | string)[] | undefined) => {
    if (values === undefined) return;
    if (values[0] === 0 || values[0] === '') delete filters[type];
    else filters[type] = values;
  };
  if (changes.delay !== undefined || changes.jitter !== undefined) {
    const delay = changes.delay ?? filters.delay?.[0];
    if (delay === undefined) throw new UsageError('--jitter varies a delay, and the link has none: add --delay MS');
    const jitter = changes.jitter ?? filters.delay?.[1] ?? 0;
    set('delay', [delay, jitter]);
  }
  set('packet_loss', changes.loss === undefined ? undefined : [changes.loss]);
  set('corrupt', changes.corrupt === undefined ? undefined : [changes.corrupt]);
  set('frequency_drop', changes.frequencyDrop === undefined ? undefined : [changes.frequencyDrop]);
  set('bpf', changes.bpf === undefined ? undefined : [changes.bpf.map((e) => e.trim()).filter(Boolean).join('\n')]);
  set('rate', changes.rate === undefined ? undefined : [changes.rate]);
  set('duplicate', changes.duplicate === undefined ? undefined : [changes.duplicate]);
  return filters;
}
