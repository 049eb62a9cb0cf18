import type WebSocket from 'ws';
import { OperationError, UnreachableError } from './errors.js';
import { apiPath, type StreamServer } from './api.js';
import { certificateProblem } from '../util/tls-trust.js';
import { untrustedServer } from './http-errors.js';
import { httpsAgentFor } from './tls-agent.js';

/** The websocket route of the controller's stream, or of a project's (GNS3 v2; emuctl and GNS3 servers alike). */
export function notificationsPath(projectId?: string): string {
  return projectId ? `/v2/${apiPath('projects', projectId, 'notifications', 'ws')}` : '/v2/notifications/ws';
}

/** One notification: the text exactly as the server sent it, and what it says. */
export interface ReceivedNotification {
  text: string;
  action: string;
  event: Record<string, any>;
}

/** An open notification stream. */
export interface NotificationConnection {
  /** The messages until the server closes the stream (or `close()`). */
  messages(): AsyncIterable<ReceivedNotification>;
  /** Why the stream ended, once it has. */
  endReason(): string | undefined;
  close(): void;
}

/**
 * Opens a notification websocket. `ws` is loaded only here, so that commands that do not
 * stream never pay for it. Refusals become OperationErrors with the server's message
 * (401, 404 for an unknown project), a server that cannot be reached an UnreachableError.
 */
export async function openNotifications(server: StreamServer, path: string): Promise<NotificationConnection> {
  const { default: WebSocketClass } = await import('ws');
  const base = server.url.replace(/\/+$/, '');
  const url = base.replace(/^http/, 'ws') + path;
  const headers: Record<string, string> = {};
  if (server.user !== undefined) headers.authorization = `Basic ${Buffer.from(`${server.user}:${server.password ?? ''}`).toString('base64')}`;
  server.debug?.(`→ GET ${url} (websocket)`);
  const agent = url.startsWith('wss:') ? httpsAgentFor(server.trust) : undefined;
  const socket = new WebSocketClass(url, { headers, handshakeTimeout: server.connectTimeoutMs ?? 10_000, perMessageDeflate: false, agent });
  // Listening before the handshake ends: the first ping may come in the same packet as the 101.
  const stream = connection(socket);
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
        reject(new OperationError(`${serverMessage(text) ?? `the server refused the notification stream ${path} (HTTP ${status})`}${auth}`, status));
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
  return stream;
}

function connection(socket: WebSocket): NotificationConnection {
  const queue: ReceivedNotification[] = [];
  let ended: string | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    const text = data.toString();
    try {
      const parsed = JSON.parse(text) as { action?: unknown; event?: unknown };
      if (typeof parsed.action !== 'string') return;
      queue.push({ text, action: parsed.action, event: (parsed.event ?? {}) as Record<string, any> });
      notify();
    } catch {
      // not a notification
    }
  });
  socket.on('error', (err) => (ended ??= err.message));
  socket.once('close', (code, reason) => {
    ended ??= `closed by the server (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
    notify();
  });
  return {
    async *messages() {
      for (;;) {
        const next = queue.shift();
        if (next) yield next;
        else if (ended !== undefined) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    endReason: () => ended,
    close: () => {
      ended ??= 'closed';
      socket.terminate();
      notify();
    },
  };
}

function serverMessage(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return text.trim() ? text.trim().slice(0, 200) : undefined;
  }
}
