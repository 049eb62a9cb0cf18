import { UsageError } from './errors.js';
import { apiPath, type ApiClient } from './api.js';
import { resolveOne, type NamedKind } from './resolve.js';

/** A compute as the controller returns it (GNS3 v2; never with its password). */
export interface Compute {
  compute_id: string;
  name: string;
  protocol: 'http' | 'https' | string;
  host: string;
  port: number;
  user?: string | null;
  connected: boolean;
  cpu_usage_percent?: number | null;
  memory_usage_percent?: number | null;
  last_error?: string | null;
  capabilities?: { version?: string; node_types?: string[]; platform?: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** Fields accepted by POST /v2/computes. */
export interface ComputeFields {
  name: string;
  protocol: 'http' | 'https';
  host: string;
  port: number;
  user?: string;
  password?: string;
  /** emuctl's own: the CA (PEM) the controller trusts for this https compute. */
  ca_cert?: string;
  /** emuctl's own: the pinned SHA-256 fingerprint of this https compute's certificate. */
  fingerprint?: string;
}

/** Methods the forward route carries. */
export const FORWARD_METHODS = ['GET', 'POST', 'PUT'] as const;
export type ForwardMethod = (typeof FORWARD_METHODS)[number];

/** Naming rules for computes (used by name-or-id resolution). */
export const COMPUTE_KIND: NamedKind<Compute> = {
  kind: 'compute',
  id: (compute) => compute.compute_id,
  name: (compute) => compute.name,
};

/** A copy safe to print: a GNS3 server never sends the password, and if one did it is dropped here. */
function withoutPassword(compute: Compute): Compute {
  const { password: _password, ...rest } = compute;
  return rest as Compute;
}

/** GET /v2/computes. */
export async function listComputes(api: ApiClient): Promise<Compute[]> {
  return (await api.get<Compute[]>('computes')).map(withoutPassword);
}

/** GET /v2/computes/{compute_id}. */
export async function getCompute(api: ApiClient, computeId: string): Promise<Compute> {
  return withoutPassword(await api.get<Compute>(apiPath('computes', computeId)));
}

/** POST /v2/computes. */
export async function addCompute(api: ApiClient, fields: ComputeFields): Promise<Compute> {
  return withoutPassword(await api.post<Compute>('computes', fields));
}

/** DELETE /v2/computes/{compute_id}. */
export function removeCompute(api: ApiClient, computeId: string): Promise<void> {
  return api.delete(apiPath('computes', computeId));
}

/** The compute named by `ref` (name, id or unique UUID prefix). */
export async function findCompute(api: ApiClient, ref: string): Promise<Compute> {
  return resolveOne(await listComputes(api), ref, COMPUTE_KIND);
}

/** The base URL of a compute, e.g. http://10.0.0.2:3080. */
export function computeUrl(compute: Pick<Compute, 'protocol' | 'host' | 'port'>): string {
  const host = compute.host.includes(':') ? `[${compute.host}]` : compute.host;
  return `${compute.protocol}://${host}:${compute.port}`;
}

/**
 * Splits a compute URL into GNS3's protocol, host and port. Without a port the
 * scheme's default applies (80, 443), as in any URL; a path, query or credentials
 * are usage errors (a compute is a server root; credentials go in --user).
 */
export function computeAddressOf(url: string): Pick<ComputeFields, 'protocol' | 'host' | 'port'> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid URL "${url}": expected e.g. http://host:3080`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`invalid URL "${url}": only http and https are supported`);
  if (parsed.username || parsed.password) throw new UsageError('put credentials in --user and --password-stdin, not in the URL');
  if (parsed.pathname !== '/' || parsed.search || parsed.hash) throw new UsageError(`invalid URL "${url}": a compute URL is a server root, e.g. http://host:3080`);
  const protocol = parsed.protocol === 'https:' ? 'https' : 'http';
  const port = parsed.port ? Number(parsed.port) : protocol === 'https' ? 443 : 80;
  return { protocol, host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/**
 * The forward route's path for `action` (one or more `/`-separated segments,
 * optionally followed by `?query`, which is passed on unchanged).
 */
export function forwardPath(computeId: string, emulator: string, action: string): string {
  const queryAt = action.indexOf('?');
  const segments = (queryAt < 0 ? action : action.slice(0, queryAt)).split('/').filter(Boolean);
  if (segments.length === 0) throw new UsageError('the action needs at least one path segment, e.g. interfaces');
  const query = queryAt < 0 ? '' : new URLSearchParams(action.slice(queryAt + 1)).toString();
  return apiPath('computes', computeId, emulator, ...segments) + (query ? `?${query}` : '');
}

/** GET|POST|PUT /v2/computes/{compute_id}/{emulator}/{action}: the compute's own answer (undefined when empty). */
export async function forwardCall(api: ApiClient, method: ForwardMethod, path: string, body?: unknown): Promise<unknown> {
  const answer = method === 'GET' ? await api.get<unknown>(path)
    : method === 'POST' ? await api.post<unknown>(path, body) : await api.put<unknown>(path, body);
  return answer === '' ? undefined : answer;
}
