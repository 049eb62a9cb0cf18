import { ConflictError, InvalidError } from '../errors.js';

/** How many numbers a name pattern may try before GNS3 gives up (its node limit). */
const MAX_NUMBER = 1_000_000;

/** GNS3 drops the spaces of every node name ("VPCS 1" becomes "VPCS1"); nothing left is a 400. */
export function withoutSpaces(name: string): string {
  const kept = name.replace(/ /g, '');
  if (kept === '') throw new InvalidError(`Node name '${name}' is empty once its spaces are removed`);
  return kept;
}

/** True when a name is a pattern: `{0}` or `{id}` stands for a number. */
export function isNamePattern(name: string): boolean {
  return name.includes('{0}') || name.includes('{id}');
}

/** The pattern with its number filled in (`PC{0}` and 3 give `PC3`); any other `{…}` field is a 409, as in GNS3. */
export function formatName(pattern: string, n: number): string {
  return pattern.replace(/\{(\w*)\}/g, (whole, field: string) => {
    if (field === '0' || field === 'id') return String(n);
    if (field === 'name') return 'Node';
    throw new ConflictError(`${whole} is not a valid replacement string in the node name`);
  });
}

/** The first name the pattern gives that is not taken. */
function firstFree(pattern: string, taken: (name: string) => boolean): string {
  for (let n = 1; n < MAX_NUMBER; n++) {
    const name = formatName(pattern, n);
    if (!taken(name)) return name;
  }
  throw new ConflictError('A node name could not be allocated (node limit reached?)');
}

/**
 * A free node name as GNS3 allocates them (creates, renames, templates, duplicates): spaces dropped; a pattern gets
 * its first free number; a taken name gets its trailing number replaced (`PC1` → `PC2`), or a
 * number appended (`SW` → `SW1`).
 */
export function allocateNodeName(requested: string, taken: (name: string) => boolean): string {
  let base = withoutSpaces(requested);
  if (taken(base)) base = base.replace(/[0-9]+$/, '{0}');
  if (isNamePattern(base)) return firstFree(base, taken);
  if (!taken(base)) return base;
  return firstFree(`${base}{0}`, taken);
}
