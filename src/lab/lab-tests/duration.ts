/** `30s`, `500ms`, `2m`, `1m30s` or a bare number of seconds, in milliseconds; undefined when it is not a duration. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text * 1000 : undefined;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return parts.reduce((total, p) => total + Number(p[1]) * units[p[2]], 0);
}
