import type WebSocket from 'ws';
import { apiPath, type StreamServer } from './api.js';
import { openServerWebSocket } from './server-websocket.js';

/** The websocket route of the controller's stream, or of a project's, after the API prefix (the same on v2 and v3). */
export function notificationsPath(projectId?: string): string {
  return projectId ? apiPath('projects', projectId, 'notifications', 'ws') : 'notifications/ws';
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
 * Opens a notification websocket. Refusals become OperationErrors with the server's message (401,
 * 404 for an unknown project), a server that cannot be reached an UnreachableError.
 */
export async function openNotifications(server: StreamServer, path: string): Promise<NotificationConnection> {
  let stream: NotificationConnection | undefined;
  // Listening before the handshake ends: the first ping may come in the same packet as the 101.
  await openServerWebSocket(server, path, 'the notification stream', (socket) => (stream = connection(socket)));
  return stream!;
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
