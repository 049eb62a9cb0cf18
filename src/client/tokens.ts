import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmuctlPaths } from '../config/paths.js';

/** A GNS3 3.x access token kept for one profile, with what it was issued for. */
export interface StoredToken {
  url: string;
  user: string;
  token: string;
  /** Expiry (seconds since the epoch) read from the JWT's `exp`, when it has one. */
  expires?: number;
}

/** Where tokens are kept: one owner-only (0600) file beside the profiles, keyed by profile name. */
export function tokensFile(paths: EmuctlPaths): string {
  return join(paths.profilesDir, 'tokens.json');
}

/** The tokens, keyed by profile name; a missing or unreadable file holds none. */
export function readTokens(paths: EmuctlPaths): Record<string, StoredToken> {
  try {
    const data = JSON.parse(readFileSync(tokensFile(paths), 'utf8')) as unknown;
    return data && typeof data === 'object' ? (data as Record<string, StoredToken>) : {};
  } catch {
    return {};
  }
}

/** Saves (or with undefined, forgets) the token of `profile`; the file is written 0600 and renamed into place. */
export function writeToken(paths: EmuctlPaths, profile: string, token: StoredToken | undefined): void {
  const all = readTokens(paths);
  if (token) all[profile] = token;
  else delete all[profile];
  mkdirSync(paths.profilesDir, { recursive: true, mode: 0o700 });
  const file = tokensFile(paths);
  // One CLI process writes at a time; its pid keeps two processes' temporary files apart (node:crypto stays unloaded).
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** The `exp` claim of a JWT (not verified: only to know when to log in again), or undefined. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp : undefined;
  } catch {
    return undefined;
  }
}

/** True when `stored` can be sent for this URL and user now (a minute of margin before its expiry). */
export function usableToken(stored: StoredToken | undefined, url: string, user: string, nowSeconds = Date.now() / 1000): stored is StoredToken {
  if (!stored || stored.url !== url || stored.user !== user || !stored.token) return false;
  return stored.expires === undefined || stored.expires - 60 > nowSeconds;
}

/** Hides `?token=…` in a URL or path before it is logged or put in a message. */
export function withoutToken(text: string): string {
  return text.replace(/([?&]token=)[^&#\s]*/g, '$1<hidden>');
}
