/**
 * Natural order for names, as people number them: PC2 before PC10, case ignored
 * (ties then broken by exact text). Plain JavaScript rather than localeCompare or
 * Intl.Collator, whose first use loads ICU data (~5 ms of every list command's start-up).
 */
export function compareNames(a: string, b: string): number {
  const x = a.match(CHUNKS) ?? [];
  const y = b.match(CHUNKS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const order = compareChunks(x[i], y[i]);
    if (order !== 0) return order;
  }
  return x.length - y.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Runs of digits and runs of anything else. */
const CHUNKS = /\d+|\D+/g;

function compareChunks(x: string, y: string): number {
  const xDigits = x.charCodeAt(0) >= 48 && x.charCodeAt(0) <= 57;
  const yDigits = y.charCodeAt(0) >= 48 && y.charCodeAt(0) <= 57;
  if (xDigits && yDigits) {
    // Any length of digits: without leading zeros, the longer number is the larger.
    const u = x.replace(/^0+(?=\d)/, '');
    const v = y.replace(/^0+(?=\d)/, '');
    return u.length - v.length || (u < v ? -1 : u > v ? 1 : 0);
  }
  if (xDigits !== yDigits) return xDigits ? -1 : 1;
  const u = x.toLowerCase();
  const v = y.toLowerCase();
  return u < v ? -1 : u > v ? 1 : 0;
}

/** Sorts a copy of `items` by `name` in natural order. */
export function sortedByName<T>(items: readonly T[], name: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareNames(name(a), name(b)));
}
