/** Test helpers: UDP peers standing in for the far end of a tunnel, and hand-built Ethernet frames. */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataplaneApi, LinkFilters } from '../../src/daemon/dataplane/index.js';

/** A UDP socket on 127.0.0.1 that records every datagram it receives. */
export class Peer {
  readonly frames: Buffer[] = [];
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: dgram.Socket, readonly port: number) {
    socket.on('message', (m) => {
      this.frames.push(m);
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('error', () => undefined); // ECONNREFUSED while the NIO is not there yet
  }

  /** Binds a new peer on an ephemeral port. */
  static async open(type: 'udp4' | 'udp6' = 'udp4'): Promise<Peer> {
    const s = dgram.createSocket({ type, recvBufferSize: 4 * 1024 * 1024 });
    s.bind(0, type === 'udp4' ? '127.0.0.1' : '::1');
    await once(s, 'listening');
    return new Peer(s, s.address().port);
  }

  /** Points the peer at a NIO's lport, so send() reaches it. */
  async connect(lport: number, host = '127.0.0.1'): Promise<void> {
    this.socket.connect(lport, host);
    await once(this.socket, 'connect');
  }

  send(frame: Buffer): void {
    this.socket.send(frame);
  }

  /** Waits until `n` frames in all have arrived; fails after `ms`. */
  async waitFor(n: number, ms = 2000): Promise<Buffer[]> {
    const deadline = Date.now() + ms;
    while (this.frames.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${n} frames on peer ${this.port}, got ${this.frames.length}`);
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), sleep(left)]);
    }
    return this.frames.slice(0, n);
  }

  clear(): void {
    this.frames.length = 0;
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

/** A port number that was free a moment ago (bind 0, read it, close). */
export async function freePort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  s.bind(0, '127.0.0.1');
  await once(s, 'listening');
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A peer wired to port `port` of `nodeId` through a NIO (lport free, rport = the peer). */
export async function wire(dp: DataplaneApi, nodeId: string, port: number, opts?: { filters?: LinkFilters; suspend?: boolean }): Promise<Peer & { lport: number }> {
  const peer = await Peer.open();
  for (let attempt = 0; ; attempt++) {
    const lport = await freePort();
    try {
      await dp.addNio(nodeId, port, { bindHost: '127.0.0.1', lport, rhost: '127.0.0.1', rport: peer.port }, opts);
      await peer.connect(lport);
      return Object.assign(peer, { lport });
    } catch (e) {
      if (attempt >= 5 || (e as Error).name !== 'ConflictError') {
        peer.close();
        throw e;
      }
    }
  }
}

/** Parses "aa:bb:cc:dd:ee:ff". */
export function mac(s: string): Buffer {
  return Buffer.from(s.split(':').map((h) => parseInt(h, 16)));
}

/** An Ethernet II frame, padded to the 60-byte minimum. */
export function eth(dst: string, src: string, ethertype: number, payload: Buffer = Buffer.alloc(46)): Buffer {
  const f = Buffer.concat([mac(dst), mac(src), Buffer.from([ethertype >> 8, ethertype & 0xff]), payload]);
  return f.length >= 60 ? f : Buffer.concat([f, Buffer.alloc(60 - f.length)]);
}

/** The frame with an 802.1Q-style tag inserted after the MACs. */
export function tagged(frame: Buffer, vid: number, tpid = 0x8100): Buffer {
  return Buffer.concat([frame.subarray(0, 12), Buffer.from([tpid >> 8, tpid & 0xff, vid >> 8, vid & 0xff]), frame.subarray(12)]);
}

/** Tag (tpid, vid) at byte 12 of a frame, or null if untagged. */
export function tagOf(frame: Buffer, offset = 12): { tpid: number; vid: number } | null {
  const tpid = frame.readUInt16BE(offset);
  if (![0x8100, 0x88a8, 0x9100, 0x9200].includes(tpid)) return null;
  return { tpid, vid: frame.readUInt16BE(offset + 2) & 0xfff };
}

function ipChecksum(b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < b.length; i += 2) sum += (b[i] << 8) + (b[i + 1] ?? 0);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

/** An IPv4 ICMP echo request frame with valid checksums. */
export function icmpEcho(dst: string, src: string, srcIp: number[], dstIp: number[], seq = 1): Buffer {
  const icmp = Buffer.alloc(16);
  icmp[0] = 8; // echo request
  icmp.writeUInt16BE(0x1234, 4);
  icmp.writeUInt16BE(seq, 6);
  icmp.write('emuctl!!', 8);
  icmp.writeUInt16BE(ipChecksum(icmp), 2);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + icmp.length, 2);
  ip[8] = 64;
  ip[9] = 1; // ICMP
  Buffer.from(srcIp).copy(ip, 12);
  Buffer.from(dstIp).copy(ip, 16);
  ip.writeUInt16BE(ipChecksum(ip), 10);
  return eth(dst, src, 0x0800, Buffer.concat([ip, icmp]));
}

/** An ARP request (who-has dstIp tell srcIp), broadcast. */
export function arpRequest(src: string, srcIp: number[], dstIp: number[]): Buffer {
  const arp = Buffer.concat([
    Buffer.from([0, 1, 8, 0, 6, 4, 0, 1]),
    mac(src), Buffer.from(srcIp), Buffer.alloc(6), Buffer.from(dstIp),
  ]);
  return eth('ff:ff:ff:ff:ff:ff', src, 0x0806, arp);
}

/** Resolves once `check()` is true (polled), failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 2000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Gives in-flight datagrams time to arrive, for assertions that something did NOT arrive. */
export function settle(ms = 100): Promise<void> {
  return sleep(ms);
}

export interface PcapFile {
  magic: number; major: number; minor: number; thiszone: number; sigfigs: number; snaplen: number; network: number;
  records: { sec: number; usec: number; caplen: number; len: number; data: Buffer }[];
}

/** Parses a little-endian pcap file; fails on a partial record. */
export function parsePcap(buf: Buffer): PcapFile {
  assert.ok(buf.length >= 24, `pcap shorter than its global header (${buf.length} bytes)`);
  const file: PcapFile = {
    magic: buf.readUInt32LE(0), major: buf.readUInt16LE(4), minor: buf.readUInt16LE(6), thiszone: buf.readInt32LE(8),
    sigfigs: buf.readUInt32LE(12), snaplen: buf.readUInt32LE(16), network: buf.readUInt32LE(20), records: [],
  };
  let o = 24;
  while (o < buf.length) {
    assert.ok(o + 16 <= buf.length, 'partial record header');
    const caplen = buf.readUInt32LE(o + 8);
    assert.ok(o + 16 + caplen <= buf.length, 'partial record data');
    file.records.push({ sec: buf.readUInt32LE(o), usec: buf.readUInt32LE(o + 4), caplen, len: buf.readUInt32LE(o + 12), data: buf.subarray(o + 16, o + 16 + caplen) });
    o += 16 + caplen;
  }
  return file;
}
