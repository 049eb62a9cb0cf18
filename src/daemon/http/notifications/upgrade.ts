import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';

/** The raw connection of a request that asked to upgrade, until a route takes it over. */
export interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
}

const pending = new WeakMap<IncomingMessage, PendingUpgrade>();

/**
 * The server's `upgrade` listener: the request goes through the Express app like any
 * other, so the request guard (Origin, Host), auth, X-Route, the route table and the error mapper apply to it (a refusal
 * is an ordinary HTTP answer, then the connection closes). A route that accepts the
 * upgrade takes the socket with `takeUpgrade(req, res)`.
 */
export function upgradeThroughApp(app: Express): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    pending.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as import('node:net').Socket);
    res.on('finish', () => socket.end());
    app(req as never, res as never);
  };
}

/** Hands the socket of an upgrade over to a protocol handler: the HTTP response object lets go of it. */
export function takeUpgrade(req: IncomingMessage, res: ServerResponse): PendingUpgrade | undefined {
  const upgrade = pending.get(req);
  if (!upgrade) return undefined;
  pending.delete(req);
  res.detachSocket(upgrade.socket as import('node:net').Socket);
  return upgrade;
}
