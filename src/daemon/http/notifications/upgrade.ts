import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import { InvalidError } from '../../errors.js';

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

/** Accepts the websocket upgrades of routes; each handshake answer carries its route's X-Route. */
export class RouteWebSockets {
  private readonly wss: WebSocketServer;
  private readonly templates = new WeakMap<IncomingMessage, string>();

  constructor(maxPayload: number) {
    this.wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload });
    this.wss.on('headers', (headers, req) => headers.push(`X-Route: ${this.templates.get(req) ?? ''}`));
  }

  /** InvalidError (400) unless the request asks to upgrade: call it before doing anything for the socket. */
  requireUpgrade(req: IncomingMessage, template: string): void {
    if (!req.headers.upgrade || !pending.has(req)) throw notUpgraded(template);
  }

  /** Completes the handshake and hands the websocket to `onSocket`. */
  accept(req: IncomingMessage, res: ServerResponse, template: string, onSocket: (ws: WebSocket) => void): void {
    const upgrade = takeUpgrade(req, res);
    if (!upgrade) throw notUpgraded(template);
    this.templates.set(req, template);
    this.wss.handleUpgrade(req, upgrade.socket, upgrade.head, onSocket);
  }
}

function notUpgraded(template: string): InvalidError {
  return new InvalidError(`${template} is a websocket route: connect with Upgrade: websocket`);
}
