import { AmbiguousError, NoMatchError } from './errors.js';

/** How to name the objects of one kind: a kind for messages, and how to read their id and name. */
export interface NamedKind<T> {
  kind: string;
  id(item: T): string;
  name(item: T): string;
}

/** A UUID prefix must be at least this long (as with git) so a short name is not taken for one. */
export const MIN_PREFIX = 4;
const MAX_LISTED = 10;

function describe<T>(items: readonly T[], spec: NamedKind<T>): string {
  const listed = items.slice(0, MAX_LISTED).map((item) => `${spec.name(item)} (${spec.id(item)})`);
  if (items.length > MAX_LISTED) listed.push(`and ${items.length - MAX_LISTED} more`);
  return listed.join(', ');
}

/**
 * Finds the one object named by `ref`: an exact UUID, then an exact name, then a
 * unique UUID prefix (at least MIN_PREFIX characters). No match or several → an error
 * listing the candidates.
 */
export function resolveOne<T>(items: readonly T[], ref: string, spec: NamedKind<T>): T {
  const wanted = ref.trim();
  const lower = wanted.toLowerCase();
  const byId = items.find((item) => spec.id(item).toLowerCase() === lower);
  if (byId) return byId;

  const byName = items.filter((item) => spec.name(item) === wanted);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) {
    throw new AmbiguousError(`${spec.kind} name "${wanted}" is ambiguous: ${describe(byName, spec)}; use the UUID`);
  }

  if (wanted.length >= MIN_PREFIX && /^[0-9a-f-]+$/.test(lower)) {
    const byPrefix = items.filter((item) => spec.id(item).toLowerCase().startsWith(lower));
    if (byPrefix.length === 1) return byPrefix[0];
    if (byPrefix.length > 1) {
      throw new AmbiguousError(`"${wanted}" matches several ${spec.kind}s: ${describe(byPrefix, spec)}; give more of the UUID`);
    }
  }

  const known = items.length ? `; known: ${describe(items, spec)}` : `; there are no ${spec.kind}s`;
  throw new NoMatchError(`no ${spec.kind} matches "${wanted}"${known}`);
}
