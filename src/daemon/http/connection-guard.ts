import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import { LogThrottle } from '../log-throttle.js';
import { answerAndClose } from './client-errors.js';

/** The bounds on connections: in all, per client address, and how long a new one may take to send its first request's headers. */
export interface ConnectionLimits {
  maxConnections: number;
  maxPerAddress: number;
  headersTimeoutMs: number;
  /** The server speaks TLS: HTTP goes through the TLS socket made after the handshake. */
  tls: boolean;
}

/** One accepted connection, from accept until it closes. */
interface Tracked {
  raw: Socket;
  address: string;
  /** remote address and port, as the raw socket and the TLS socket over it both give them. */
  peer: string;
  /** The socket HTTP reads and writes: the raw one, or with TLS the TLS socket once the handshake is done. */
  http?: Duplex;
  /** Until its first request's headers are in: the deadline timer. */
  deadline?: NodeJS.Timeout;
}

/** The connections of one client address, and which of them have not sent a request yet (oldest first). */
interface AddressEntry {
  all: Set<Tracked>;
  waiting: Set<Tracked>;
}

/**
 * Bounds the daemon's connections against slow and greedy clients (slowloris):
 * - a connection whose first request's headers are not in within headersTimeoutMs is answered
 *   408 and closed, whether or not bytes trickle in and whether or not the client ever closes its
 *   side (Node's own check answers, but a half-closed socket then stays open until the client lets go);
 * - one address holds at most maxPerAddress connections; the excess is closed at once;
 * - when maxConnections are open, idle keep-alive connections are closed first; then a newcomer
 *   from an address holding fewer connections than the greediest one takes the place of that
 *   address's oldest connection still waiting for its headers; otherwise the newcomer is refused.
 * Each refusal is logged, once per 10 s per reason.
 */
export function guardConnections(server: Server, limits: ConnectionLimits, log: Logger): void {
  const byAddress = new Map<string, AddressEntry>();
  const byPeer = new Map<string, Tracked>();
  let open = 0;
  const throttle = new LogThrottle(10_000);
  const warn = (key: string, line: (held: string) => string) => {
    const { log: report, held } = throttle.pass(key);
    if (report) log.warn(line(held ? ` (${held} refused since the last report)` : ''));
  };

  const forget = (t: Tracked) => {
    const entry = byAddress.get(t.address);
    if (!entry?.all.delete(t)) return;
    open--;
    clearTimeout(t.deadline);
    entry.waiting.delete(t);
    if (entry.all.size === 0) byAddress.delete(t.address);
    byPeer.delete(t.peer);
  };
  const requestArrived = (socket: Duplex) => {
    const t = byPeer.get(peerKey(socket as Socket));
    if (!t?.deadline) return;
    clearTimeout(t.deadline);
    t.deadline = undefined;
    byAddress.get(t.address)?.waiting.delete(t);
  };
  const makeRoom = (address: string): boolean => {
    server.closeIdleConnections();
    for (const entry of byAddress.values()) for (const t of entry.all) if (t.raw.destroyed) forget(t);
    if (open < limits.maxConnections) return true;
    const mine = byAddress.get(address)?.all.size ?? 0;
    let greediest: AddressEntry | undefined;
    for (const entry of byAddress.values()) if (entry.waiting.size > 0 && entry.all.size > mine && entry.all.size > (greediest?.all.size ?? 0)) greediest = entry;
    const victim = greediest?.waiting.values().next().value;
    if (!victim) return false;
    warn('evict', (held) => `connection cap reached: ${limits.maxConnections} connections open (max_connections); closed one from ${victim.address} still waiting for its headers to admit ${address}${held}`);
    forget(victim);
    victim.raw.destroy();
    return true;
  };

  server.on('connection', (raw: Socket) => {
    const address = clientAddress(raw);
    if ((byAddress.get(address)?.all.size ?? 0) >= limits.maxPerAddress) {
      warn(`address ${address}`, (held) => `connection cap per address reached: ${address} has ${limits.maxPerAddress} connections open (max_connections_per_address); refusing more${held}`);
      return void raw.destroy();
    }
    if (open >= limits.maxConnections && !makeRoom(address)) {
      warn('cap', (held) => `connection cap reached: ${limits.maxConnections} connections open (max_connections); refusing new ones, e.g. from ${address}${held}`);
      return void raw.destroy();
    }
    const t: Tracked = { raw, address, peer: peerKey(raw), http: limits.tls ? undefined : raw };
    const entry = byAddress.get(address) ?? { all: new Set(), waiting: new Set() };
    byAddress.set(address, entry);
    entry.all.add(t);
    entry.waiting.add(t);
    byPeer.set(t.peer, t);
    open++;
    t.deadline = setTimeout(() => {
      t.deadline = undefined;
      entry.waiting.delete(t);
      // Before the TLS handshake is done there is no way to answer: the connection is cut.
      if (t.http) answerAndClose(t.http, 'ERR_HTTP_REQUEST_TIMEOUT');
      else raw.destroy();
    }, limits.headersTimeoutMs).unref();
    raw.once('close', () => forget(t));
  });
  server.on('secureConnection', (socket: Duplex) => {
    const t = byPeer.get(peerKey(socket as Socket));
    if (t) t.http = socket;
  });
  server.on('request', (req: IncomingMessage) => requestArrived(req.socket));
  server.on('upgrade', (req: IncomingMessage) => requestArrived(req.socket));
}

/** A TCP peer as both the raw socket and the TLS socket over it name it. */
function peerKey(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

/** The client's address, an IPv4 client on a dual-stack socket named as IPv4. */
function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
