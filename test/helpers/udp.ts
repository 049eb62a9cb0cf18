import { createSocket, type Socket } from 'node:dgram';

/** A UDP endpoint on 127.0.0.1 standing for the far end of a tunnel. */
export interface UdpEndpoint {
  socket: Socket;
  port: number;
  /** Frames received so far. */
  received: Buffer[];
  /** Resolves with the next frame (or those already received first), or rejects after `ms`. */
  next(ms?: number): Promise<Buffer>;
  send(frame: Buffer, port: number): Promise<void>;
  close(): Promise<void>;
}

/** Binds a UDP socket on 127.0.0.1 (port 0 = any free port). */
export async function udpEndpoint(port = 0): Promise<UdpEndpoint> {
  const socket = createSocket('udp4');
  const received: Buffer[] = [];
  let waiter: ((b: Buffer) => void) | null = null;
  let consumed = 0;
  socket.on('message', (msg) => {
    received.push(msg);
    if (waiter) {
      const w = waiter;
      waiter = null;
      consumed++;
      w(msg);
    }
  });
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  return {
    socket,
    port: socket.address().port,
    received,
    next(ms = 2000) {
      if (consumed < received.length) return Promise.resolve(received[consumed++]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = null;
          reject(new Error(`no frame on port ${socket.address().port} within ${ms} ms`));
        }, ms);
        waiter = (b) => {
          clearTimeout(timer);
          resolve(b);
        };
      });
    },
    send: (frame, to) => new Promise((resolve, reject) => socket.send(frame, to, '127.0.0.1', (err) => (err ? reject(err) : resolve()))),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** An Ethernet frame: dst, src (as "aa:bb:..." strings), ethertype, payload. */
export function ethernetFrame(dst: string, src: string, ethertype = 0x88b5, payload = Buffer.from('emuctl test payload')): Buffer {
  const header = Buffer.alloc(14);
  Buffer.from(dst.replace(/:/g, ''), 'hex').copy(header, 0);
  Buffer.from(src.replace(/:/g, ''), 'hex').copy(header, 6);
  header.writeUInt16BE(ethertype, 12);
  return Buffer.concat([header, payload]);
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
