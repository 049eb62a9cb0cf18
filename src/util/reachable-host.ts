/** The address to reach a server bound to `host` from this machine: a wildcard bind means loopback. */
export function reachableHost(host: string): string {
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}
