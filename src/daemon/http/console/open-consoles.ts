import type { WebSocket } from 'ws';

/**
 * The console websockets open now. A stopping daemon closes them first: an upgraded connection is
 * no longer an HTTP one, so closing the server would wait for it forever.
 */
export class OpenConsoles {
  private readonly sockets = new Set<WebSocket>();

  add(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.once('close', () => this.sockets.delete(ws));
  }

  /** Closes every console websocket (1001, going away), cutting those that do not answer within a second. */
  closeAll(): void {
    for (const ws of this.sockets) {
      ws.close(1001, 'the daemon is shutting down');
      setTimeout(() => ws.terminate(), 1000).unref();
    }
  }
}
