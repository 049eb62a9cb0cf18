import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { certificateProblem, trustAgent } from '../../util/tls-trust.js';
import { BadGatewayError, GatewayTimeoutError, InvalidError } from '../errors.js';
import { assertComputePath } from './compute-path.js';

/** Where and how to reach a compute over HTTP. */
export interface ComputeEndpoint {
  compute_id: string;
  name: string;
  protocol: 'http' | 'https';
  host: string;
  port: number;
  user?: string | null;
  password?: string | null;
  /** For https: a CA bundle (PEM) trusted instead of the system CAs. */
  ca_cert?: string | null;
  /** For https: the pinned SHA-256 fingerprint (colon-hex) of the compute's certificate. */
  fingerprint?: string | null;
}

export interface ComputeAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const AGENT_OPTIONS = { keepAlive: true, maxSockets: 32 };
const httpAgent = new HttpAgent(AGENT_OPTIONS);
/** One keep-alive agent per way of trusting a certificate (system CAs, a CA bundle, a pin). */
const httpsAgents = new Map<string, HttpsAgent>();

/** The agent that reaches `c` and verifies its certificate as the compute's record says. */
export function computeAgent(c: ComputeEndpoint): HttpAgent | HttpsAgent {
  if (c.protocol !== 'https') return httpAgent;
  const key = c.fingerprint ? `pin ${c.fingerprint}` : c.ca_cert ? `ca ${c.ca_cert}` : 'system';
  let agent = httpsAgents.get(key);
  if (!agent) httpsAgents.set(key, (agent = trustAgent({ fingerprint: c.fingerprint ?? undefined, ca: c.ca_cert ?? undefined }, AGENT_OPTIONS)));
  return agent;
}

/** Why a connection to a compute failed, naming certificate problems plainly. */
export function connectionFailure(err: NodeJS.ErrnoException): string {
  const problem = certificateProblem(err);
  return problem ? `its TLS certificate is not trusted: ${problem}` : err.code ?? err.message;
}

export { reachableHost } from '../../util/reachable-host.js';

/** The base URL of a compute. */
export function endpointUrl(c: ComputeEndpoint): string {
  return `${c.protocol}://${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}`;
}

/** The Basic credentials of a compute that has a user, for its Authorization header. */
export function authorizationOf(c: ComputeEndpoint): string | undefined {
  return c.user ? `Basic ${Buffer.from(`${c.user}:${c.password ?? ''}`).toString('base64')}` : undefined;
}

/** How a compute is named in error messages. */
export function computeLabel(c: ComputeEndpoint): string {
  return `compute '${c.name}' (${endpointUrl(c)})`;
}

/** A request body passed through as it arrives (an image upload, a forwarded call), with its headers. */
export interface RawBody {
  stream: Readable;
  contentType?: string;
  contentLength?: string;
}

interface RequestOptions {
  body?: unknown;
  /** Sent instead of `body`: streamed, never buffered or re-encoded. */
  raw?: RawBody;
  timeoutMs: number;
  /**
   * The answer to a call that timed out, if it still comes: with it set, a time-out rejects at once
   * but leaves the request open (for LATE_ANSWER_FACTOR times the timeout), so that the caller can undo
   * what the compute did after all.
   */
  late?: (answer: ComputeAnswer) => void;
  /** The largest answer buffered; a larger one is cut off with a 502. */
  maxBytes?: number;
  /** Ends the call early (with the signal's reason) when the compute is found disconnected. */
  signal?: AbortSignal;
}

/** How much longer than its timeout a call with `late` waits for the answer it gave up on. */
const LATE_ANSWER_FACTOR = 10;

/**
 * One call to a compute over keep-alive connections, bounded by `timeoutMs`
 * from start to last byte (a streamed body re-arms it with every chunk it
 * sends, so a large upload is bounded by inactivity instead). Connection
 * failures become 502, time-outs 504, both naming the compute. Only paths
 * under `/v2/compute/` are called, sent as they are: never resolved as a URL,
 * which would turn `..` and `\` into a way out.
 */
export function computeRequest(c: ComputeEndpoint, method: string, path: string, opts: RequestOptions & { stream?: false }): Promise<ComputeAnswer>;
export function computeRequest(c: ComputeEndpoint, method: string, path: string, opts: RequestOptions & { stream: true }): Promise<IncomingMessage>;
export function computeRequest(c: ComputeEndpoint, method: string, path: string, opts: RequestOptions & { stream?: boolean }): Promise<ComputeAnswer | IncomingMessage> {
  assertComputePath(path);
  const payload = opts.body === undefined || opts.raw ? undefined : Buffer.from(JSON.stringify(opts.body));
  const headers: Record<string, string | number> = { accept: 'application/json' };
  if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
  if (opts.raw?.contentType) headers['content-type'] = opts.raw.contentType;
  if (opts.raw?.contentLength) headers['content-length'] = opts.raw.contentLength;
  const authorization = authorizationOf(c);
  if (authorization) headers.authorization = authorization;
  const send = c.protocol === 'https' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let req: ReturnType<typeof send>;
    try {
      req = send({ protocol: `${c.protocol}:`, hostname: c.host, port: c.port, path, method, headers, agent: computeAgent(c) });
    } catch (err) {
      // Node refuses a path or header holding characters HTTP does not allow (ERR_UNESCAPED_CHARACTERS, ERR_INVALID_CHAR).
      return reject(new InvalidError(`Cannot send ${method} ${path} to ${computeLabel(c)}: ${(err as Error).message}`));
    }
    let gaveUp = false;
    const giveUp = (reason: Error) => {
      if (opts.late && !gaveUp && !opts.stream) {
        gaveUp = true;
        clearTimeout(timer);
        // Waiting for an answer nobody waits for must not keep a stopping daemon alive.
        timer = setTimeout(expire, opts.timeoutMs * LATE_ANSWER_FACTOR).unref();
        req.socket?.unref();
        return reject(reason);
      }
      clearTimeout(timer);
      req.destroy();
      opts.raw?.stream.destroy();
      reject(reason);
    };
    const expire = () => giveUp(new GatewayTimeoutError(`${computeLabel(c)} did not answer ${method} ${path} within ${opts.timeoutMs / 1000} s`));
    let timer = setTimeout(expire, opts.timeoutMs);
    // The compute was found disconnected while the call ran: it ends now, with the signal's reason.
    const abandon = () => giveUp(opts.signal!.reason as Error);
    opts.signal?.addEventListener('abort', abandon, { once: true });
    const settled = () => opts.signal?.removeEventListener('abort', abandon);
    req.once('close', settled);
    req.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new BadGatewayError(`${computeLabel(c)} is unreachable: ${connectionFailure(err)}`));
    });
    req.once('response', (res) => {
      if (opts.stream) {
        clearTimeout(timer);
        settled();
        return resolve(res);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (opts.maxBytes !== undefined && size > opts.maxBytes) giveUp(new BadGatewayError(`${computeLabel(c)} answered ${method} ${path} with more than ${opts.maxBytes} bytes`));
      });
      res.once('end', () => {
        clearTimeout(timer);
        const answer = { status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) };
        if (gaveUp) opts.late!(answer);
        else resolve(answer);
      });
      res.once('error', (err) => {
        clearTimeout(timer);
        reject(new BadGatewayError(`${computeLabel(c)} broke off its answer: ${err.message}`));
      });
    });
    if (!opts.raw) return void req.end(payload);
    opts.raw.stream.on('data', () => {
      clearTimeout(timer);
      timer = setTimeout(expire, opts.timeoutMs);
    });
    pipeline(opts.raw.stream, req).catch((err: Error) => {
      clearTimeout(timer);
      req.destroy();
      reject(new BadGatewayError(`sending the request body to ${computeLabel(c)} failed: ${err.message}`));
    });
  });
}

/** The message a compute put in its error body, or a description of what it sent. */
export function errorMessageOf(answer: ComputeAnswer): string {
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through
  }
  const text = answer.body.toString('utf8').trim().slice(0, 200);
  return text ? `HTTP ${answer.status}: ${text}` : `HTTP ${answer.status}`;
}
