import { InvalidError } from '../../errors.js';

/** Segments of `/v2/computes/{compute_id}/` before the emulator. */
const PREFIX_SEGMENTS = 4;

/**
 * The `{emulator}/{action}` segments of a forward, decoded one by one from the raw path (`req.path`,
 * still percent-encoded, also for an absolute-form request target): Express
 * decodes `%2f` into a `/` that can no longer be told from a separator, so an encoded `/` or `\`
 * is refused here, before decoding. A trailing `/` is dropped, as the router ignores it.
 */
export function forwardedSegments(rawPath: string): string[] {
  const raw = rawPath.split('/').slice(PREFIX_SEGMENTS);
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
  return raw.map((segment) => {
    if (/%(2f|5c)/i.test(segment)) throw new InvalidError(`Path segment '${segment}' holds an encoded / or \\: nothing outside /v2/compute/ of a compute can be reached`);
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new InvalidError(`Path segment '${segment}' is not valid percent-encoded UTF-8`);
    }
  });
}

/** The query string of a URL with its `?`, or ''. */
export function queryOf(originalUrl: string): string {
  const at = originalUrl.indexOf('?');
  return at < 0 ? '' : originalUrl.slice(at);
}

/**
 * Refuses a forward to a compute route that answers with an endless stream (a capture's pcap, a
 * notification stream, a websocket): the forward buffers its answer, and GNS3 routes these through
 * the controller's own routes.
 */
export function refuseStreams(segments: string[]): void {
  const last = segments[segments.length - 1];
  if (last === 'pcap') throw new InvalidError('A capture stream is not forwarded: use GET /v2/projects/{project_id}/links/{link_id}/pcap');
  if (segments.includes('notifications') || last === 'ws') throw new InvalidError('Notification streams and websockets are not forwarded: use /v2/notifications or /v2/projects/{project_id}/notifications');
}
