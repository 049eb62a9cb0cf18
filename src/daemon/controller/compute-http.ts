import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { BadGatewayError, GatewayTimeoutError } from '../errors.js';

/** Where and how to reach a compute over HTTP. */
export interface ComputeEndpoint {
  compute_id: string;
  name: string;
  protocol: 'http' | 'https';
  host: string;
  port: number;
  user?: string | null;
  password?: string | null;
}

export interface ComputeAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 32 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 32 }) };

/** The address to reach a server bound to `host` from this machine: a wildcard bind means loopback. */
export function reachableHost(host: string): string {
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}

/** The base URL of a compute. */
export function endpointUrl(c: ComputeEndpoint): string {
  return `${c.protocol}://${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}`;
}

/** How a compute is named in error messages. */
export function computeLabel(c: ComputeEndpoint): string {
  return `compute '${c.name}' (${endpointUrl(c)})`;
}

/**
 * One call to a compute over keep-alive connections, bounded by `timeoutMs`
 * from start to last byte. Connection failures become 502, time-outs 504,
 * both naming the compute.
 */
export function computeRequest(c: ComputeEndpoint, method: string, path: string, opts: { body?: unknown; timeoutMs: number; stream?: false }): Promise<ComputeAnswer>;
export function computeRequest(c: ComputeEndpoint, method: string, path: string, opts: { body?: unknown; timeoutMs: number; stream: true }): Promise<IncomingMessage>;
export function computeRequest(c: ComputeEndpoint, method: string, path: string, opts: { body?: unknown; timeoutMs: number; stream?: boolean }): Promise<ComputeAnswer | IncomingMessage> {
  // A stream is sent as is (file uploads); anything else as JSON.
  const upload = opts.body instanceof Readable ? opts.body : undefined;
  const payload = opts.body === undefined || upload ? undefined : Buffer.from(JSON.stringify(opts.body));
  const headers: Record<string, string | number> = { accept: 'application/json' };
  if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
  if (upload) headers['content-type'] = 'application/octet-stream';
  if (c.user) headers.authorization = `Basic ${Buffer.from(`${c.user}:${c.password ?? ''}`).toString('base64')}`;
  const send = c.protocol === 'https' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(`${endpointUrl(c)}${path}`, { method, headers, agent: agents[c.protocol] });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new GatewayTimeoutError(`${computeLabel(c)} did not answer ${method} ${path} within ${opts.timeoutMs / 1000} s`));
    }, opts.timeoutMs);
    req.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new BadGatewayError(`${computeLabel(c)} is unreachable: ${err.code ?? err.message}`));
    });
    req.once('response', (res) => {
      if (opts.stream) {
        clearTimeout(timer);
        return resolve(res);
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.once('error', (err) => {
        clearTimeout(timer);
        reject(new BadGatewayError(`${computeLabel(c)} broke off its answer: ${err.message}`));
      });
    });
    if (upload) upload.once('error', (err) => req.destroy(err)).pipe(req);
    else req.end(payload);
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
