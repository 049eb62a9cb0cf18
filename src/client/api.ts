/**
 * The API client contract used by resource modules (projects.ts, version.ts, …).
 * Type-only: the got implementation lives in got-client.ts and is loaded lazily,
 * so modules importing these types cost nothing at start-up.
 */

/** How an https server's certificate is trusted: the system CAs, else a CA file (PEM), or a pinned SHA-256 fingerprint of the leaf. */
export interface ServerTrust {
  caFile?: string;
  /** Canonical colon-hex (see util/tls-fingerprint.ts). */
  fingerprint?: string;
}

/** Where and how to reach a GNS3 v2 server. */
export interface ApiClientOptions {
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
  delete(path: string): Promise<void>;
  /** GET of a file's bytes (GNS3's …/files/{path} routes answer application/octet-stream), as UTF-8 text. */
  getText(path: string): Promise<string>;
  /** POST of a file's bytes (the body is the text itself, not JSON). */
  postText(path: string, text: string): Promise<void>;
}

/** Joins path segments, escaping each one (IDs and names never change the route). */
export function apiPath(...segments: string[]): string {
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 2;
