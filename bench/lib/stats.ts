/** The median of the finite values (NaN when there is none). */
export function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

/** "median (min–max)" of the finite values, each formatted by `f`; "–" when there is none. */
export function spread(xs: number[], f: (n: number) => string): string {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? `${f(s[Math.floor(s.length / 2)])} (${f(s[0])}–${f(s[s.length - 1])})` : '–';
}

/** A whole number with thousands separators. */
export const f0 = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
