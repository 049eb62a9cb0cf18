import type { WebSocket } from 'ws';

/** The node a console websocket is joined to. */
export interface ConsoleOwner {
  projectId: string;
  nodeId: string;
}

/**
 * The console websockets open now, with the node each is joined to. A stopping daemon closes them
 * first: an upgraded connection is no longer an HTTP one, so closing the server would wait for it
 * forever. A console reset closes those of one node or of a whole project.
 */
export class OpenConsoles {
  private readonly sockets = new Map<WebSocket, ConsoleOwner>();

  add(ws: WebSocket, owner: ConsoleOwner): void {
    this.sockets.set(ws, owner);
    ws.once('close', () => this.sockets.delete(ws));
  }

  /** Closes every console websocket (1001, going away), cutting those that do not answer within a second. */
  closeAll(): void {
    for (const ws of this.sockets.keys()) closeWithin(ws, 1001, 'the daemon is shutting down');
  }

  /** Closes (1000) the console websockets of a project's nodes, or of one of them; returns how many. */
  reset(projectId: string, nodeId?: string): number {
    let closed = 0;
    for (const [ws, owner] of this.sockets) {
      if (owner.projectId !== projectId || (nodeId !== undefined && owner.nodeId !== nodeId)) continue;
      closeWithin(ws, 1000, 'the console connection was reset');
      closed++;
    }
    return closed;
  }
}

function closeWithin(ws: WebSocket, code: number, reason: string): void {
  ws.close(code, reason);
  setTimeout(() => ws.terminate(), 1000).unref();
}
