import type { ServerSession } from './session.js';
import type { ApiVersion } from './api-version.js';

/**
 * The API client contract used by resource modules (projects.ts, version.ts, …).
 * Type-only: the got implementation lives in got-client.ts and is loaded lazily,
 * so modules importing these types cost nothing at start-up.
 */

import type { ServerTrust } from './server-trust.js';

export type { ServerTrust };

/** Where and how to reach a GNS3 server (v2, or v3 through a session). */
export interface ApiClientOptions {
  /** The API version and authentication of a profile's server; without it, /v2 with basic auth. */
  session?: ServerSession;
  /** Server root, e.g. http://127.0.0.1:3080 (the client adds /v2). */
  url: string;
  user?: string;
  password?: string;
  trust?: ServerTrust;
  /** Per-request timeout in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Retries of idempotent requests (GET, PUT, DELETE, HEAD) on transient failures (default 2). */
  retries?: number;
  /** Appended to "cannot reach" errors, e.g. "run 'emuctl daemon start'". */
  unreachableHint?: string;
  /** Receives one line per request and response when --debug is on. */
  debug?: (line: string) => void;
}

/** A server reached for a long-lived stream (a pcap, notifications), outside the got client. */
export interface StreamServer {
  url: string;
  /** As in ApiClientOptions: the version and token (sent as `?token=` on v3 streams and websockets). */
  session?: ServerSession;
  user?: string;
  password?: string;
  trust?: ServerTrust;
  /** How long to wait for the answer's headers (the stream itself has no time limit). */
  connectTimeoutMs?: number;
  unreachableHint?: string;
  debug?: (line: string) => void;
}

/** Query-string parameters. */
export type SearchParams = Record<string, string | number | boolean>;

/** A JSON client for one server's /v2 API; paths are relative to /v2 (e.g. `projects`). */
export interface ApiClient {
  /** Server root URL, without /v2. */
  readonly url: string;
  get<T>(path: string, searchParams?: SearchParams): Promise<T>;
  /** `timeoutMs` overrides the client's timeout for this call (a command run on a node). */
  post<T>(path: string, body?: unknown, options?: { timeoutMs?: number }): Promise<T>;
  put<T>(path: string, body?: unknown): Promise<T>;
  /** `timeoutMs` overrides the client's timeout for this call (deleting a project of many nodes). */
  delete(path: string, options?: { timeoutMs?: number }): Promise<void>;
  /** GET of a file's bytes (GNS3's …/files/{path} routes answer application/octet-stream), as UTF-8 text. */
  getText(path: string): Promise<string>;
  /** POST of a file's bytes (the body is the text itself, not JSON). */
  postText(path: string, text: string): Promise<void>;
  /** The GNS3 API version the server speaks (v2 when the client has no session). */
  apiVersion?(): Promise<ApiVersion>;
}

/** Joins path segments, escaping each one (IDs and names never change the route). */
export function apiPath(...segments: string[]): string {
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 2;
