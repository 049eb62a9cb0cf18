import type WebSocket from 'ws';
import { OperationError, UnreachableError } from './errors.js';
import type { StreamServer } from './api.js';
import { certificateProblem } from '../util/tls-trust.js';
import { untrustedServer } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';
import { withoutToken } from './tokens.js';

/**
 * Opens a websocket route of the server with the profile's credentials. `path` is relative to the
 * API prefix (`projects/{id}/notifications/ws`), the same on v2 and v3; on v3 the token goes in
 * `?token=` (GNS3 3.x reads it there), and is hidden in every debug line and message. `ws` is loaded only here, so
 * that commands that do not stream never pay for it. `listen` runs before the handshake ends (a first
 * frame may come in the same packet as the 101). Refusals become OperationErrors with the server's
 * message (`what` names the route when it sent none), a server that cannot be reached an UnreachableError.
 */
export async function openServerWebSocket(server: StreamServer, path: string, what: string, listen: (socket: WebSocket) => void = () => {}): Promise<WebSocket> {
  const { default: WebSocketClass } = await import('ws');
  const base = server.url.replace(/\/+$/, '');
  const api = server.session ? await server.session.api() : 'v2';
  const token = server.session ? await server.session.queryToken() : undefined;
  const url = `${base.replace(/^http/, 'ws')}/${api}/${path}${token ? `?${new URLSearchParams({ token })}` : ''}`;
  const headers: Record<string, string> = {};
  const basic = server.session ? (api === 'v2' ? await server.session.authorization() : undefined)
    : server.user !== undefined ? `Basic ${Buffer.from(`${server.user}:${server.password ?? ''}`).toString('base64')}` : undefined;
  if (basic) headers.authorization = basic;
  server.debug?.(`→ GET ${withoutToken(url)} (websocket)`);
  // A wss: URL is checked against the profile's CA or pinned fingerprint, like every HTTPS call.
  const agent = url.startsWith('wss:') ? httpsAgentFor(server.trust) : undefined;
  const socket = new WebSocketClass(url, { headers, handshakeTimeout: server.connectTimeoutMs ?? 10_000, perMessageDeflate: false, agent });
  listen(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        socket.terminate();
        const status = res.statusCode ?? 0;
        server.debug?.(`← ${status} /${api}/${path}`);
        const auth = status === 401 || (status === 403 && api === 'v3') ? " (check the profile's user and password)" : '';
        reject(new OperationError(`${serverMessage(text) ?? `the server refused ${what} /${api}/${path} (HTTP ${status})`}${auth}`, status));
      });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const problem = certificateProblem(err);
      if (problem) return reject(untrustedServer(base, problem));
      const why = err.code === 'ECONNREFUSED' ? 'connection refused' : err.message;
      reject(new UnreachableError(`cannot reach ${base}: ${withoutToken(why)}`, server.unreachableHint));
    });
  });
  server.debug?.(`← 101 /${api}/${path}`);
  return socket;
}

function serverMessage(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return text.trim() ? text.trim().slice(0, 200) : undefined;
  }
}
