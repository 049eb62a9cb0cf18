import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Fault injection for tests, off unless `EMUCTL_FAILPOINTS` names a point.
 * `EMUCTL_FAILPOINTS=vpcs.create.after-console,persist.write` arms two points;
 * `name=N` arms a point for its first N hits only, `name>N` for every hit after the first N;
 * `name:ENOSPC` makes a point that stands for a system call fail with that errno code.
 * Hits are counted per entry as written, so arming a point with a new entry starts a new count.
 * `EMUCTL_FAILPOINTS_FILE=<path>` adds the points listed in that file (same syntax), read at
 * every hit, so that a test arms and disarms points while the daemon runs.
 */

/** The error an armed failpoint throws, so tests can tell it from a real failure. */
export class FailpointError extends Error {
  constructor(readonly point: string) {
    super(`failpoint ${point} triggered`);
    this.name = 'FailpointError';
  }
}

const hits = new Map<string, number>();

interface Spec {
  armed: boolean;
  entry?: string;
  limit?: number;
  after?: number;
  code?: string;
}

function specText(): string {
  const file = process.env.EMUCTL_FAILPOINTS_FILE;
  let fromFile = '';
  if (file) {
    try {
      fromFile = readFileSync(file, 'utf8');
    } catch {
      // no file: nothing armed from it
    }
  }
  return `${process.env.EMUCTL_FAILPOINTS ?? ''},${fromFile}`;
}

function armedSpec(name: string): Spec {
  if (!process.env.EMUCTL_FAILPOINTS && !process.env.EMUCTL_FAILPOINTS_FILE) return { armed: false };
  for (const entry of specText().split(/[,\n]/)) {
    const m = /^([^=:>]+)(?::([A-Z0-9]+))?(?:=(\d+)|>(\d+))?$/.exec(entry.trim());
    if (m && m[1] === name) {
      return { armed: true, entry: entry.trim(), code: m[2], limit: m[3] === undefined ? undefined : Number(m[3]), after: m[4] === undefined ? undefined : Number(m[4]) };
    }
  }
  return { armed: false };
}

function hit(name: string): Spec {
  const spec = armedSpec(name);
  if (!spec.armed) return spec;
  const n = (hits.get(spec.entry!) ?? 0) + 1;
  hits.set(spec.entry!, n);
  if (spec.limit !== undefined && n > spec.limit) return { armed: false };
  if (spec.after !== undefined && n <= spec.after) return { armed: false };
  return spec;
}

/** Whether the point is armed for this hit (counts the hit); for points that act rather than throw. */
export function failpointArmed(name: string): boolean {
  return hit(name).armed;
}

/** Throws a FailpointError when the point is armed. */
export function failpoint(name: string): void {
  if (failpointArmed(name)) throw new FailpointError(name);
}

/** Throws an error like a failed system call's (`code` set, ENOSPC unless the spec names another) when the point is armed. */
export function failpointErrno(name: string): void {
  const spec = hit(name);
  if (!spec.armed) return;
  const code = spec.code ?? 'ENOSPC';
  throw Object.assign(new Error(`${code}: failpoint ${name} triggered`), { code, failpoint: name });
}

/** Waits while the point is armed (re-read every 20 ms): a test holds an operation there, then lets it go; `holding` runs once when it starts to wait. */
export async function failpointHold(name: string, holding?: () => void): Promise<void> {
  if (!armedSpec(name).armed) return;
  holding?.();
  while (armedSpec(name).armed) await sleep(20);
}
