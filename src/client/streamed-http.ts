import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { OperationError, UnreachableError } from '../cli/errors.js';

/** A server to send or fetch byte streams to or from (project archives), and how to authenticate. */
export interface StreamServer {
  url: string;
  user?: string;
  password?: string;
  /** How long to wait for the response headers (the body itself has no time limit). */
  connectTimeoutMs?: number;
  unreachableHint?: string;
  debug?: (line: string) => void;
}

const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];

/**
 * One request whose body and/or answer is a byte stream (node's http: no body timeout, unlike the
 * JSON client). `pathAndQuery` is relative to /v2. An error answer is an OperationError with the
 * server's message; a server that cannot be reached is an UnreachableError.
 */
export async function streamedRequest(server: StreamServer, method: string, pathAndQuery: string, body?: Readable): Promise<IncomingMessage> {
  const base = server.url.replace(/\/+$/, '');
  const url = new URL(`${base}/v2/${pathAndQuery}`);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (server.user !== undefined) headers.authorization = `Basic ${Buffer.from(`${server.user}:${server.password ?? ''}`).toString('base64')}`;
  const timeoutMs = server.connectTimeoutMs ?? 10_000;
  server.debug?.(`→ ${method} ${url.toString()} (streamed)`);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, resolve);
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), timeoutMs);
    req.once('response', () => clearTimeout(timer));
    req.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ETIMEDOUT') reject(new UnreachableError(`cannot reach ${base}: no answer within ${timeoutMs / 1000} s`, server.unreachableHint));
      else if (UNREACHABLE.includes(err.code ?? '')) reject(new UnreachableError(`cannot reach ${base}: ${err.code === 'ECONNREFUSED' ? 'connection refused' : err.message}`, server.unreachableHint));
      else reject(new OperationError(`request to ${base} failed: ${err.message}`));
    });
    if (body) {
      // Sending a long upload may take longer than the wait for headers.
      body.once('data', () => clearTimeout(timer));
      body.once('error', (err) => req.destroy(err)).pipe(req);
    } else req.end();
  });
  server.debug?.(`← ${response.statusCode} ${method} ${url.pathname}`);
  if ((response.statusCode ?? 500) >= 400) {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const auth = response.statusCode === 401 ? " (check the profile's user and password)" : '';
    throw new OperationError(`${serverMessage(text) ?? `${method} ${url.pathname}: HTTP ${response.statusCode}`}${auth}`, response.statusCode);
  }
  return response;
}

/** Reads a JSON answer to the end. */
export async function readJson<T>(response: IncomingMessage): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
  } catch {
    throw new OperationError('the server answered with something that is not JSON; is it a GNS3 v2 server?');
  }
}

function serverMessage(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}
