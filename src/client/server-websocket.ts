import type WebSocket from 'ws';
import { OperationError, UnreachableError } from './errors.js';
import type { StreamServer } from './api.js';
import { certificateProblem } from '../util/tls-trust.js';
import { untrustedServer } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';

/**
 * Opens a websocket route of the server with the profile's credentials. `ws` is loaded only here, so
 * that commands that do not stream never pay for it. `listen` runs before the handshake ends (a first
 * frame may come in the same packet as the 101). Refusals become OperationErrors with the server's
 * message (`what` names the route when it sent none), a server that cannot be reached an UnreachableError.
 */
export async function openServerWebSocket(server: StreamServer, path: string, what: string, listen: (socket: WebSocket) => void = () => {}): Promise<WebSocket> {
  const { default: WebSocketClass } = await import('ws');
  const base = server.url.replace(/\/+$/, '');
  const url = base.replace(/^http/, 'ws') + path;
  const headers: Record<string, string> = {};
  if (server.user !== undefined) headers.authorization = `Basic ${Buffer.from(`${server.user}:${server.password ?? ''}`).toString('base64')}`;
  server.debug?.(`→ GET ${url} (websocket)`);
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
        server.debug?.(`← ${status} ${path}`);
        const auth = status === 401 ? " (check the profile's user and password)" : '';
        reject(new OperationError(`${serverMessage(text) ?? `the server refused ${what} ${path} (HTTP ${status})`}${auth}`, status));
      });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const problem = certificateProblem(err);
      if (problem) return reject(untrustedServer(base, problem));
      const why = err.code === 'ECONNREFUSED' ? 'connection refused' : err.message;
      reject(new UnreachableError(`cannot reach ${base}: ${why}`, server.unreachableHint));
    });
  });
  server.debug?.(`← 101 ${path}`);
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
