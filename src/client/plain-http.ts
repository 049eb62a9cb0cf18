import type { ServerTrust } from './server-trust.js';
import { OperationError, UnreachableError } from './errors.js';
import { UNREACHABLE_CODES, untrustedServer } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';
import { certificateProblem } from '../util/tls-trust.js';

/** A small JSON answer: its status and parsed body (undefined when not JSON). */
export interface PlainAnswer {
  status: number;
  body: unknown;
}

/**
 * One small request outside the got client (the version probe and the login, which run before
 * the client knows its prefix). Network failures become UnreachableErrors like the client's.
 */
export async function plainRequest(base: string, method: string, path: string, opts: { json?: unknown; trust?: ServerTrust; timeoutMs: number; unreachableHint?: string }): Promise<PlainAnswer> {
  const url = new URL(`${base}${path}`);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const body = opts.json === undefined ? undefined : Buffer.from(JSON.stringify(opts.json));
  const headers: Record<string, string | number> = { accept: 'application/json' };
  if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': body.length });
  return new Promise<PlainAnswer>((resolve, reject) => {
    const agent = url.protocol === 'https:' ? httpsAgentFor(opts.trust) : false;
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', (err) => reject(new OperationError(`request to ${base} failed: ${err.message}`)));
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), opts.timeoutMs);
    req.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const problem = certificateProblem(err);
      if (problem) reject(untrustedServer(base, problem));
      else if (err.code === 'ETIMEDOUT') reject(new UnreachableError(`cannot reach ${base}: no answer within ${opts.timeoutMs / 1000} s`, opts.unreachableHint));
      else if (err.code && UNREACHABLE_CODES[err.code]) reject(new UnreachableError(`cannot reach ${base}: ${UNREACHABLE_CODES[err.code]}`, opts.unreachableHint));
      else reject(new OperationError(`request to ${base} failed: ${err.message}`));
    });
    req.end(body);
  });
}

/** The `message` (GNS3) or `detail` (FastAPI) of an error body, if it has one. */
export function errorMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { message, detail } = body as { message?: unknown; detail?: unknown };
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  return undefined;
}
