/**
 * Fault injection for tests, off unless `EMUCTL_FAILPOINTS` names a point.
 * `EMUCTL_FAILPOINTS=vpcs.create.after-console,persist.write` arms two points;
 * `name=N` arms a point for its first N hits only.
 */

/** The error an armed failpoint throws, so tests can tell it from a real failure. */
export class FailpointError extends Error {
  constructor(readonly point: string) {
    super(`failpoint ${point} triggered`);
    this.name = 'FailpointError';
  }
}

const hits = new Map<string, number>();

function armedSpec(name: string): { armed: boolean; limit?: number } {
  const spec = process.env.EMUCTL_FAILPOINTS;
  if (!spec) return { armed: false };
  for (const entry of spec.split(',')) {
    const [point, count] = entry.trim().split('=');
    if (point === name) return { armed: true, limit: count === undefined ? undefined : Number(count) };
  }
  return { armed: false };
}

/** Whether the point is armed for this hit (counts the hit); for points that act rather than throw. */
export function failpointArmed(name: string): boolean {
  const { armed, limit } = armedSpec(name);
  if (!armed) return false;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  return limit === undefined || n <= limit;
}

/** Throws a FailpointError when the point is armed. */
export function failpoint(name: string): void {
  if (failpointArmed(name)) throw new FailpointError(name);
}
