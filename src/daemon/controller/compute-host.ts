import { isIP } from 'node:net';
import { InvalidError } from '../errors.js';

/** One DNS label (letters, digits, `-`, and `_` which some local names carry), at most 63 characters. */
const LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;
const MAX_NAME_LENGTH = 253;

/**
 * Checks the `host` of a compute: a host name, an IPv4 address or a bare IPv6 address, nothing else.
 * It becomes the authority of every URL the controller calls, so a `/`, `?`, `#`, `@` (credentials),
 * `:` port, space or control character (CR LF header splitting) would send the calls, and the
 * compute's password, somewhere else. Refused with a 400 naming the value.
 */
export function checkComputeHost(host: string): string {
  if (isIP(host)) return host;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length > 0 && name.length <= MAX_NAME_LENGTH && name.split('.').every((label) => LABEL.test(label))) return host;
  throw new InvalidError(`host ${JSON.stringify(host)} is not a host name or an IP address (no scheme, port, path, credentials or brackets: give the port in 'port')`);
}
