import { InvalidError } from '../errors.js';

/** Every call the controller makes to a compute goes under this prefix, and nowhere else. */
export const COMPUTE_PREFIX = '/v2/compute/';

/**
 * Why a decoded path segment may not be sent to a compute, or undefined when it may: empty (`//`),
 * a dot segment (`.`, `..`, also Tomcat's `..;`), a separator (`/`, `\`), a `%` left by a double
 * encoding (`%252e`), or a control character (CR/LF).
 */
export function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'is empty';
  if (/^\.+(;.*)?$/.test(segment)) return 'is a dot segment';
  if (/[/\\]/.test(segment)) return 'holds a path separator';
  if (segment.includes('%')) return 'holds a % (a double encoding)';
  if (/[\x00-\x1f\x7f]/.test(segment)) return 'holds a control character';
  return undefined;
}

/**
 * The path of a call on a compute: `/v2/compute/` then each decoded segment, checked and encoded
 * again, so that the compute decodes exactly the values checked here. InvalidError names the bad one.
 */
export function computePath(segments: string[], query = ''): string {
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) throw new InvalidError(`Path segment '${printable(segment)}' ${problem}: nothing outside ${COMPUTE_PREFIX} of a compute can be reached`);
  }
  if (query && !/^\?[\x21-\x7e]*$/.test(query.replace(/#.*$/, ''))) throw new InvalidError('The query string holds characters that must be percent-encoded');
  return `${COMPUTE_PREFIX}${segments.map(encodeURIComponent).join('/')}${query.replace(/#.*$/, '')}`;
}

/** Throws unless `path` (as sent on the wire, not decoded) stays under `/v2/compute/`: the last check before any call. */
export function assertComputePath(path: string): void {
  const [pathname] = path.split('?', 1);
  const escapes = !pathname.startsWith(COMPUTE_PREFIX) || pathname.split('/').some((s) => /^(\.|%2e)+$/i.test(s)) || /%2f|%5c|\\/i.test(pathname);
  if (escapes) throw new InvalidError(`Refusing to call ${printable(pathname)} on a compute: only ${COMPUTE_PREFIX} may be reached`);
}

/** A value for an error message: control characters shown escaped, at most 100 characters. */
function printable(value: string): string {
  return JSON.stringify(value.slice(0, 100)).slice(1, -1);
}
