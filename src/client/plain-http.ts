import got from 'got';
import type { ServerTrust } from './server-trust.js';
import { toCliError } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';

/** A small JSON answer: its status and parsed body (undefined when not JSON). */
export interface PlainAnswer {
  status: number;
  body: unknown;
}

/**
 * One request whose status the caller reads itself (the version probe and the login, which run
 * before the client knows its prefix): got, with the client's TLS trust and error mapping, no
 * retry, and any status answered rather than thrown.
 */
export async function plainRequest(base: string, method: 'GET' | 'POST', path: string, opts: { json?: unknown; trust?: ServerTrust; timeoutMs: number; unreachableHint?: string }): Promise<PlainAnswer> {
  try {
    const res = await got(`${base}${path}`, {
      method,
      ...(opts.json === undefined ? {} : { json: opts.json }),
      headers: { accept: 'application/json' },
      agent: base.startsWith('https:') ? { https: httpsAgentFor(opts.trust) } : {},
      timeout: { request: opts.timeoutMs },
      retry: { limit: 0 },
      throwHttpErrors: false,
      responseType: 'text',
    });
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, body };
  } catch (err) {
    throw toCliError(err, base, opts.timeoutMs, opts.unreachableHint);
  }
}

/** The `message` (GNS3) or `detail` (FastAPI) of an error body, if it has one. */
export function errorMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { message, detail } = body as { message?: unknown; detail?: unknown };
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  return undefined;
}
