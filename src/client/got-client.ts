import got, { type Got, type Method } from 'got';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, type ApiClient, type ApiClientOptions, type SearchParams } from './api.js';
import { toCliError } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';
import { OperationError } from './errors.js';
import { v3Path } from './v3-routes.js';
import type { ServerSession } from './session.js';

/**
 * Creates the got-backed client for `options.url` (loaded lazily: got is heavy). Without a
 * session it speaks /v2 with basic auth; with one, the session's API version (v3 paths mapped in
 * v3-routes.ts) and authentication (a bearer token, renewed once on a 401).
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const url = options.url.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const debug = options.debug;
  const http: Got = got.extend({
    prefixUrl: options.session ? url : `${url}/v2`,
    // Every https request verifies the certificate: system CAs, the CA file, or the pinned fingerprint.
    agent: url.startsWith('https:') ? { https: httpsAgentFor(options.trust, { keepAlive: true }) } : {},
    responseType: 'json',
    timeout: { request: timeoutMs },
    // An explicit header rather than got's username/password, which would put them in request URLs (and debug logs).
    headers: options.user === undefined || options.session ? {} : { authorization: basicAuth(options.user, options.password ?? '') },
    retry: {
      limit: options.retries ?? DEFAULT_RETRIES,
      // Only idempotent methods, and only failures that a second try can cure:
      // a refused connection or an unknown host fails at once.
      methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS'],
      statusCodes: [408, 429, 502, 503, 504],
      errorCodes: ['ECONNRESET', 'EPIPE', 'EAI_AGAIN'],
      backoffLimit: 1000,
    },
    hooks: debug ? {
      beforeRequest: [(request) => debug(`→ ${request.method} ${withoutCredentials(request.url)}`)],
      afterResponse: [(response) => {
        debug(`← ${response.statusCode} ${response.request.options.method} ${withoutCredentials(response.url)} (${response.timings.phases.total ?? '?'} ms)`);
        return response;
      }],
      beforeRetry: [(error, count) => debug(`retry ${count} after ${error.code ?? error.message}`)],
    } : {},
  });

  const session = options.session;
  /** The request path after the prefix and its auth header: /v2 as given, or the session's version. */
  const target = async (method: Method, path: string): Promise<{ path: string; headers: Record<string, string> }> => {
    const relative = path.replace(/^\/+/, '');
    if (!session) return { path: relative, headers: {} };
    const api = await session.api();
    const authorization = await session.authorization();
    return { path: `${api}/${api === 'v3' ? v3Path(method, relative) : relative}`, headers: authorization ? { authorization } : {} };
  };
  /** Sends once, and once more after a 401 when the session could log in again. */
  const send = async <R>(method: Method, path: string, attempt: (path: string, headers: Record<string, string>) => Promise<R>, callTimeoutMs: number): Promise<R> => {
    for (let retried = false; ; retried = true) {
      const { path: sent, headers } = await target(method, path);
      try {
        return await attempt(sent, headers);
      } catch (err) {
        const status = (err as { response?: { statusCode?: number } }).response?.statusCode;
        if (status === 401 && session && !retried && await session.renewAfter401()) continue;
        throw await sessionError(toCliError(err, url, callTimeoutMs, options.unreachableHint), err, method, sent);
      }
    }
  };
  /** Rewords a route-level 404 (no GNS3 message) and a 401 for the session's API version. */
  const sessionError = async (cliError: Error, err: unknown, method: Method, sent: string): Promise<Error> => {
    if (!session || !(cliError instanceof OperationError)) return cliError;
    const body = (err as { response?: { body?: unknown } }).response?.body;
    if (cliError.status === 404 && routeUnknown(body)) {
      const api = await session.api();
      return new OperationError(`${url} has no route ${method} /${sent.split('?')[0]}: it does not speak this part of the GNS3 API ${api}${api === 'v2' ? ' (a GNS3 3.x server? try --api v3)' : ''}`, 404);
    }
    if (cliError.status === 401) return new OperationError(`${cliError.message.replace(/ \(check the profile's user and password\)$/, '')}${await session.authHint()}`, 401);
    return cliError;
  };

  const call = async <T>(method: Method, path: string, body?: unknown, searchParams?: SearchParams, callTimeoutMs = timeoutMs): Promise<T> =>
    send(method, path, async (sent, headers) => {
      const response = await http(sent, {
        method,
        headers,
        json: body === undefined ? undefined : body,
        searchParams,
        ...(callTimeoutMs !== timeoutMs ? { timeout: { request: callTimeoutMs } } : {}),
      });
      return response.body as T;
    }, callTimeoutMs);

  const callText = async (method: Method, path: string, text?: string): Promise<string> =>
    send(method, path, async (sent, headers) => {
      const response = await http(sent, {
        method,
        body: text,
        headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/octet-stream' }) },
        responseType: 'buffer',
      });
      return (response.body as Buffer).toString('utf8');
    }, timeoutMs);

  return {
    url,
    get: (path, searchParams) => call('GET', path, undefined, searchParams),
    post: (path, body, callOptions) => call('POST', path, body ?? {}, undefined, callOptions?.timeoutMs),
    put: (path, body) => call('PUT', path, body ?? {}),
    delete: async (path, callOptions) => {
      await call('DELETE', path, undefined, undefined, callOptions?.timeoutMs);
    },
    getText: (path) => callText('GET', path),
    postText: async (path, text) => {
      await callText('POST', path, text);
    },
    apiVersion: () => (session ? session.api() : Promise.resolve('v2')),
  };
}

/** True for the 404 of a route the server does not have (FastAPI's `{"detail": "Not Found"}`, aiohttp's plain text), not of a missing object. */
function routeUnknown(body: unknown): boolean {
  let parsed = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const text = body.toString();
    if (/^404: Not Found/.test(text)) return true;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
  }
  return !!parsed && typeof parsed === 'object' && (parsed as { detail?: unknown }).detail === 'Not Found';
}

/** The value of a basic-auth Authorization header. */
function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** A URL for logs: never with user or password in it. */
function withoutCredentials(url: URL | string | undefined): string {
  if (!url) return '';
  const copy = new URL(String(url));
  copy.username = '';
  copy.password = '';
  return copy.toString();
}
