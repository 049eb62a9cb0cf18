import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** How the daemon is spoken to: plain HTTP unless it serves TLS. */
export type Scheme = 'http' | 'https';

/** What the daemon answers to: where it listens and the extra names it is told about. */
export interface OwnNamesOptions {
  scheme: Scheme;
  /** The address the daemon binds (settings.host). */
  bindHost: string;
  /** The port it really listens on (known only once it listens, so a getter). */
  port: () => number;
  /** `allowed_hosts`: further names it is reached by (DNS names, addresses behind NAT). */
  allowedHosts: readonly string[];
  /** The machine's own addresses, for wildcard binds; defaults to every interface's address. */
  interfaceAddresses?: () => string[];
}

/** A `Host` header or an origin's host, split and canonicalised (lower case, IPv6 compressed and without brackets). */
export interface HostPort {
  hostname: string;
  /** As written, '' when absent. */
  port: string;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const WILDCARDS = ['0.0.0.0', '::', ''];
/** A Host header: a name or IPv4 address, or a bracketed IPv6 address, then an optional port. Nothing else (no `user@`, no path). */
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;

/**
 * The names (host names and addresses) and origins of this daemon, for the request guard:
 * the bind address; for a loopback bind `localhost`, 127.0.0.1 and ::1; for a wildcard bind
 * `localhost`, the wildcards and every address of the machine at the time of the request; `allowed_hosts`.
 */
export class OwnNames {
  private readonly names: Set<string>;
  private readonly wildcard: boolean;
  private readonly interfaceAddresses: () => string[];

  constructor(private readonly opts: OwnNamesOptions) {
    const bind = canonicalHostname(opts.bindHost) ?? opts.bindHost.toLowerCase();
    this.wildcard = WILDCARDS.includes(bind);
    // A wildcard address is a name too: the pid file's URL names it, and it reaches the daemon.
    const names = this.wildcard ? ['localhost', '0.0.0.0', '::'] : LOOPBACK_NAMES.includes(bind) ? LOOPBACK_NAMES : [bind];
    this.names = new Set([...names, ...opts.allowedHosts.map((h) => allowedHostName(h) ?? h.toLowerCase())]);
    this.interfaceAddresses = opts.interfaceAddresses ?? machineAddresses;
  }

  get scheme(): Scheme {
    return this.opts.scheme;
  }

  /** Whether `hostname` (canonical, see parseHost) names this daemon. */
  hasHost(hostname: string): boolean {
    if (this.names.has(hostname)) return true;
    return this.wildcard && this.interfaceAddresses().some((address) => canonicalHostname(address) === hostname);
  }

  /** Whether `origin` (canonical, see parseOrigin) is one of the daemon's own: its scheme, one of its names, the port it listens on. */
  hasOrigin(origin: URL): boolean {
    return origin.protocol === `${this.opts.scheme}:` && effectivePort(origin) === this.opts.port() && this.hasHost(hostnameOf(origin));
  }
}

/** Parses a Host header value; undefined when it is not one (a bare IPv6 address, `user@host`, a path, a bad port). */
export function parseHost(value: string): HostPort | undefined {
  const m = HOST_HEADER.exec(value);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return undefined;
  const hostname = canonicalHostname(m[1]);
  return hostname === undefined ? undefined : { hostname, port: m[2] ?? '' };
}

/**
 * Parses an Origin header or a `cors_origins` entry: `scheme://host[:port]` with nothing after it;
 * its canonical text is `url.origin` (lower case, the scheme's default port left out). Undefined for
 * anything else, `null` (the opaque origin of sandboxed frames, file: and data: pages) included.
 */
export function parseOrigin(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.pathname !== '/' || /[?#]/.test(value)) return undefined;
  return url;
}

/** An `allowed_hosts` entry canonicalised: a host name or an address (IPv6 with or without brackets), no port, no wildcard; undefined otherwise. */
export function allowedHostName(entry: string): string | undefined {
  const bare = entry.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 0 && !/^[A-Za-z0-9._-]+$/.test(entry)) return undefined;
  return canonicalHostname(entry);
}

/** The hostname of a URL without IPv6 brackets. */
export function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function effectivePort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** A host name or address canonicalised as a browser writes it (lower case, IPv4 dotted, IPv6 compressed, no brackets); undefined if it is neither. */
export function canonicalHostname(host: string): string | undefined {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const forUrl = isIP(bare) === 6 ? `[${bare}]` : bare;
  // Only an IPv6 address may hold a colon: `name:port` is not a name.
  if (!forUrl || /[/?#@\\%\s]/.test(forUrl) || (forUrl === bare && bare.includes(':'))) return undefined;
  try {
    return hostnameOf(new URL(`http://${forUrl}/`));
  } catch {
    return undefined;
  }
}

function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}
