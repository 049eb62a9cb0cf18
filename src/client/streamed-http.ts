import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StreamServer } from './api.js';
import { OperationError, UnreachableError } from './errors.js';
import { UNREACHABLE_CODES, untrustedServer } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';
import { v3Path } from './v3-routes.js';
import { certificateProblem } from '../util/tls-trust.js';

/** What goes with a streamed request besides its method and path. */
export interface StreamedRequestOptions {
  /** The request body, sent as it is read. */
  body?: Readable;
  /** The body's length in bytes, when known (sent as Content-Length). */
  length?: number;
  /** Aborts the request and its answer (the promise then rejects with the AbortError). */
  signal?: AbortSignal;
}

/**
 * One request whose body and/or answer is a byte stream (a pcap, an image, a project archive).
 * Node's http rather than the got client: no body timeout, only a wait for the answer's headers
 * until the body starts flowing. `pathAndQuery` is a v2 path relative to the prefix (mapped by the
 * server's session on v3). An error answer (status 300 and up) is an OperationError with the
 * server's message; a server that cannot be reached is an UnreachableError. A bodiless request
 * refused with 401 on v3 is sent once more after a new login.
 */
export async function streamedRequest(server: StreamServer, method: string, pathAndQuery: string, opts: StreamedRequestOptions = {}): Promise<IncomingMessage> {
  try {
    return await streamedOnce(server, method, pathAndQuery, opts);
  } catch (err) {
    if (err instanceof OperationError && err.status === 401 && !opts.body && await server.session?.renewAfter401()) return streamedOnce(server, method, pathAndQuery, opts);
    throw err;
  }
}

async function streamedOnce(server: StreamServer, method: string, pathAndQuery: string, opts: StreamedRequestOptions): Promise<IncomingMessage> {
  const base = server.url.replace(/\/+$/, '');
  const api = server.session ? await server.session.api() : 'v2';
  const url = new URL(`${base}/${api}/${api === 'v3' ? v3Path(method, pathAndQuery) : pathAndQuery}`);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers: Record<string, string | number> = {};
  if (opts.body) headers['content-type'] = 'application/octet-stream';
  if (opts.length !== undefined) headers['content-length'] = opts.length;
  const authorization = server.session ? await server.session.authorization()
    : server.user !== undefined ? `Basic ${Buffer.from(`${server.user}:${server.password ?? ''}`).toString('base64')}` : undefined;
  if (authorization) headers.authorization = authorization;
  const timeoutMs = server.connectTimeoutMs ?? 10_000;
  server.debug?.(`→ ${method} ${url.toString()} (streamed${opts.length === undefined ? '' : `, ${opts.length} bytes`})`);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const agent = url.protocol === 'https:' ? httpsAgentFor(server.trust) : false;
    const req = request(url, { method, headers, agent, signal: opts.signal }, resolve);
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), timeoutMs);
    req.once('response', () => clearTimeout(timer));
    req.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const problem = certificateProblem(err);
      if (err.name === 'AbortError') reject(err);
      else if (problem) reject(untrustedServer(base, problem));
      else if (err.code === 'ETIMEDOUT') reject(new UnreachableError(`cannot reach ${base}: no answer within ${timeoutMs / 1000} s`, server.unreachableHint));
      else if (err.code && UNREACHABLE_CODES[err.code]) reject(new UnreachableError(`cannot reach ${base}: ${UNREACHABLE_CODES[err.code]}`, server.unreachableHint));
      else reject(new OperationError(`${method === 'GET' ? 'request to' : 'upload to'} ${base} failed: ${err.message}`));
    });
    if (opts.body) {
      // Sending a long upload may take longer than the wait for headers.
      opts.body.once('data', () => clearTimeout(timer));
      // An early answer (413, 409) ends the request: the response or the error above carries it.
      pipeline(opts.body, req).catch(() => undefined);
    } else req.end();
  });
  server.debug?.(`← ${response.statusCode} ${method} ${url.pathname}`);
  if ((response.statusCode ?? 500) >= 300) {
    const text = await readText(response);
    const auth = response.statusCode !== 401 ? '' : server.session ? await server.session.authHint() : " (check the profile's user and password)";
    throw new OperationError(`${serverMessage(text) ?? `${method} ${url.pathname}: HTTP ${response.statusCode}`}${auth}`, response.statusCode);
  }
  return response;
}

/** A local file as a request body, reporting the bytes read so far. */
export function fileBody(path: string, onProgress?: (bytes: number) => void): Readable {
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      onProgress?.(bytes);
      done(null, chunk);
    },
  });
  const file = createReadStream(path);
  file.once('error', (err) => meter.destroy(err));
  return file.pipe(meter);
}

/** Reads a JSON answer to the end. */
export async function readJson<T>(response: IncomingMessage): Promise<T> {
  try {
    return JSON.parse(await readText(response)) as T;
  } catch {
    throw new OperationError('the server answered with something that is not JSON; is it a GNS3 server?');
  }
}

/** Reads an answer to the end, as text. */
export async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function serverMessage(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}
