/** Linux limits: a path segment holds at most NAME_MAX bytes, a whole path (with its NUL) PATH_MAX. */
export const NAME_MAX = 255;
export const PATH_MAX = 4096;
/** Segments a client-given relative path may have; a real project's deepest files are about ten down. */
export const MAX_DEPTH = 64;

/**
 * Characters no client-given file name may hold: C0 and C1 controls (NUL, newline, escape…), DEL,
 * the bidirectional overrides and isolates that make a name read differently from what it is, and
 * U+FFFD, which stands for bytes that were not valid UTF-8.
 */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffd]/u;

/** `name` as a message may quote it: forbidden characters shown as \u escapes. */
export function quoteName(name: string): string {
  return name.replace(new RegExp(FORBIDDEN.source, 'gu'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Why the relative path `name` (segments split by `/`) cannot be created on Linux as it is given,
 * or undefined: a forbidden character, a segment longer than NAME_MAX bytes, more than MAX_DEPTH
 * segments, or more than PATH_MAX bytes once joined to `base` (the directory it goes into).
 */
export function pathNameProblem(name: string, base = ''): string | undefined {
  if (FORBIDDEN.test(name)) return 'holds a control or invisible formatting character';
  const segments = name.split('/').filter((s) => s !== '');
  const long = segments.find((s) => Buffer.byteLength(s) > NAME_MAX);
  if (long !== undefined) return `has a name part of ${Buffer.byteLength(long)} bytes (at most ${NAME_MAX})`;
  if (segments.length > MAX_DEPTH) return `is ${segments.length} directories deep (at most ${MAX_DEPTH})`;
  const bytes = Buffer.byteLength(base ? `${base}/${name}` : name);
  if (bytes >= PATH_MAX) return `makes a path of ${bytes} bytes (at most ${PATH_MAX - 1})`;
  return undefined;
}
