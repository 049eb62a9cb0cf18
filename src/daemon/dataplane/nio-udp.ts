import dgram from 'node:dgram';
import { bindError, connectError, errCode, type ResolvedTunnel } from './tunnel.js';

/** Requested SO_RCVBUF; the kernel caps it at net.core.rmem_max. */
const RECV_BUFFER = 4 * 1024 * 1024;
/** Sends made with a completion callback after a socket error, to count the failures. */
const WATCHED_SENDS = 4096;

/** The counters a NIO increments on socket errors. */
export interface NioCounters {
  drops: number;
  errors: number;
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

  private constructor(private readonly socket: dgram.Socket, counters: NioCounters, readonly lport: number) {
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
  static async open(tunnel: ResolvedTunnel, onFrame: (frame: Buffer) => void, counters: NioCounters): Promise<UdpNio> {
    const socket = dgram.createSocket({ type: tunnel.family === 6 ? 'udp6' : 'udp4' });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ port: tunnel.lport, address: tunnel.bindAddress, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      socket.close();
      throw bindError(tunnel, errCode(e));
    }
    try {
      socket.setRecvBufferSize(RECV_BUFFER);
    } catch {
      // best effort: a smaller buffer only means less tolerance to bursts
    }
    try {
      await new Promise<void>((resolve, reject) => socket.connect(tunnel.rport, tunnel.remoteAddress, (err?: Error) => (err ? reject(err) : resolve())));
    } catch (e) {
      socket.close();
      throw connectError(tunnel, errCode(e));
    }
    const nio = new UdpNio(socket, counters, tunnel.lport);
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
