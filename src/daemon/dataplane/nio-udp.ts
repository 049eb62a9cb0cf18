import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ConflictError, InvalidError } from '../errors.js';
import type { UdpTunnel } from './types.js';

/** Requested SO_RCVBUF; the kernel caps it at net.core.rmem_max. */
const RECV_BUFFER = 4 * 1024 * 1024;
/** Sends made with a completion callback after a socket error, to count the failures. */
const WATCHED_SENDS = 4096;

/** The counters a NIO increments on socket errors. */
export interface NioCounters {
  drops: number;
  errors: number;
}

function checkPort(name: string, v: unknown): number {
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 65535) throw new InvalidError(`${name} must be 1-65535 (got ${String(v)})`);
  return v as number;
}

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

/**
 * A GNS3 nio_udp: one datagram = one Ethernet frame. The socket is bound to
 * lport and connect()ed to rhost:rport, so the kernel drops datagrams from
 * anyone else and send() needs no address.
 */
export class UdpNio {
  private closed = false;
  /**
   * Sends left to make with a completion callback. A callback costs a nextTick
   * per frame (measured: ~4 µs more per hop), so sends go without one until the
   * socket reports an error; then the next WATCHED_SENDS are watched, so the
   * failures of a peer that refuses (ECONNREFUSED: nobody listens yet) are counted.
   */
  private watched = WATCHED_SENDS;
  /** One callback per NIO (not per frame). */
  private readonly afterSend: (err: Error | null) => void;

  private constructor(private readonly socket: dgram.Socket, counters: NioCounters) {
    this.afterSend = (err) => {
      if (err) {
        counters.errors++;
        counters.drops++;
        this.watched = WATCHED_SENDS;
      }
    };
    // Receive-side errors (a pending ICMP unreachable surfaces on recvmsg) are transient: counted, never fatal.
    socket.on('error', () => {
      counters.errors++;
      this.watched = WATCHED_SENDS;
    });
  }

  /** Binds and connects the tunnel's socket; delivers every datagram to `onFrame`. ConflictError if lport cannot be bound. */
  static async open(tunnel: UdpTunnel, onFrame: (frame: Buffer) => void, counters: NioCounters): Promise<UdpNio> {
    const lport = checkPort('lport', tunnel.lport);
    const rport = checkPort('rport', tunnel.rport);
    const bindFamily = isIP(tunnel.bindHost);
    let remote: { address: string; family: number };
    try {
      // The remote address must be of the bind address's family; either if the bind host is a name.
      remote = await lookup(tunnel.rhost, { family: bindFamily === 6 ? 6 : bindFamily === 4 ? 4 : 0 });
    } catch (e) {
      throw new InvalidError(`cannot resolve rhost "${tunnel.rhost}": ${errCode(e)}`);
    }
    const socket = dgram.createSocket({ type: remote.family === 6 ? 'udp6' : 'udp4' });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ port: lport, address: tunnel.bindHost, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      socket.close();
      throw new ConflictError(`UDP port ${lport} on ${tunnel.bindHost} cannot be bound: ${errCode(e)}`);
    }
    try {
      socket.setRecvBufferSize(RECV_BUFFER);
    } catch {
      // best effort: a smaller buffer only means less tolerance to bursts
    }
    try {
      await new Promise<void>((resolve, reject) => socket.connect(rport, remote.address, (err?: Error) => (err ? reject(err) : resolve())));
    } catch (e) {
      socket.close();
      throw new InvalidError(`cannot connect UDP port ${lport} to ${tunnel.rhost}:${rport}: ${errCode(e)}`);
    }
    const nio = new UdpNio(socket, counters);
    socket.on('message', onFrame);
    return nio;
  }

  /** Sends one frame to the connected peer. */
  send(frame: Buffer): void {
    try {
      if (this.watched > 0) {
        this.watched--;
        this.socket.send(frame, this.afterSend);
      } else {
        this.socket.send(frame);
      }
    } catch {
      this.afterSend(new Error('send failed'));
    }
  }

  /** Closes the socket; once resolved, lport can be bound again. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.socket.removeAllListeners('message');
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
