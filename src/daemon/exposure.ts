import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { InvalidError } from './errors.js';
import type { DaemonSettings } from './settings.js';

/** True for addresses only this machine reaches: 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) !== 6) return false;
  // The URL parser writes IPv6 in its shortest form, an IPv4-mapped 127.x.y.z as ::ffff:7fxx:…
  const canonical = new URL(`http://[${bare}]/`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

function hasAuth(settings: Pick<DaemonSettings, 'auth'>): boolean {
  return settings.auth !== undefined && settings.auth.password !== '';
}

/**
 * Refuses to listen beyond loopback without basic auth (anyone who reaches the port could run
 * processes on this host), unless --insecure-no-auth says so explicitly.
 */
export function checkExposure(settings: Pick<DaemonSettings, 'host' | 'auth' | 'insecureNoAuth'>): void {
  if (isLoopbackHost(settings.host) || hasAuth(settings) || settings.insecureNoAuth) return;
  throw new InvalidError(`refusing to listen on ${settings.host} without authentication: give --auth-user USER with --auth-password-file FILE (or EMUCTL_AUTH_PASSWORD), or --insecure-no-auth to expose it anyway`);
}

/** What to warn about in the log at start: an exposed daemon without auth, or with auth in clear text. */
export function exposureWarnings(settings: Pick<DaemonSettings, 'host' | 'auth' | 'insecureNoAuth' | 'tlsCert'>): string[] {
  if (isLoopbackHost(settings.host)) return [];
  if (!hasAuth(settings)) return [`--insecure-no-auth: listening on ${settings.host} without authentication; anyone who can reach this port can drive this daemon and run processes on this host`];
  if (!settings.tlsCert) return [`listening on ${settings.host} without TLS: basic-auth passwords and all traffic cross the network in clear text (use --tls-cert and --tls-key)`];
  return [];
}

/** A warning for each secret file (TLS key, password file) that users other than its owner may read. */
export function looseSecretWarnings(files: { path: string | undefined; what: string }[]): string[] {
  return files.flatMap(({ path, what }) => {
    if (!path) return [];
    try {
      const mode = statSync(path).mode & 0o777;
      return mode & 0o077 ? [`the ${what} ${path} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 it`] : [];
    } catch {
      return [];
    }
  });
}
