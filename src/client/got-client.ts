import got, { type Got, type Method } from 'got';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, type ApiClient, type ApiClientOptions, type SearchParams } from './api.js';
import { toCliError } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';

/** Creates the got-backed client for `options.url` + /v2 (loaded lazily: got is heavy). */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const url = options.url.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const debug = options.debug;
  const http: Got = got.extend({
    prefixUrl: `${url}/v2`,
    // Every https request verifies the certificate: system CAs, the CA file, or the pinned fingerprint.
    agent: url.startsWith('https:') ? { https: httpsAgentFor(options.trust, { keepAlive: true }) } : {},
    responseType: 'json',
    timeout: { request: timeoutMs },
    // An explicit header rather than got's username/password, which would put them in request URLs (and debug logs).
    headers: options.user === undefined ? {} : { authorization: basicAuth(options.user, options.password ?? '') },
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

  const call = async <T>(method: Method, path: string, body?: unknown, searchParams?: SearchParams, callTimeoutMs = timeoutMs): Promise<T> => {
    try {
      const response = await http(path.replace(/^\/+/, ''), {
        method,
        json: body === undefined ? undefined : body,
        searchParams,
        ...(callTimeoutMs !== timeoutMs ? { timeout: { request: callTimeoutMs } } : {}),
      });
      return response.body as T;
    } catch (err) {
      throw toCliError(err, url, callTimeoutMs, options.unreachableHint);
    }
  };

  const callText = async (method: Method, path: string, text?: string): Promise<string> => {
    try {
      const response = await http(path.replace(/^\/+/, ''), {
        method,
        body: text,
        headers: text === undefined ? {} : { 'content-type': 'application/octet-stream' },
        responseType: 'buffer',
      });
      return (response.body as Buffer).toString('utf8');
    } catch (err) {
      throw toCliError(err, url, timeoutMs, options.unreachableHint);
    }
  };

  return {
    url,
    get: (path, searchParams) => call('GET', path, undefined, searchParams),
    post: (path, body, callOptions) => call('POST', path, body ?? {}, undefined, callOptions?.timeoutMs),
    put: (path, body) => call('PUT', path, body ?? {}),
    delete: async (path) => {
      await call('DELETE', path);
    },
    getText: (path) => callText('GET', path),
    postText: async (path, text) => {
      await callText('POST', path, text);
    },
  };
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
