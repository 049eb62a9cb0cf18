// Hand-built frames and pcap streams for the decoder and parser tests.

/** A MAC address from text. */
export function mac(text: string): Buffer {
  return Buffer.from(text.split(':').map((h) => parseInt(h, 16)));
}

function ip4(text: string): Buffer {
  return Buffer.from(text.split('.').map(Number));
}

function ip6(text: string): Buffer {
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = part(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

export const MAC1 = '00:50:79:66:68:00';
export const MAC2 = '00:50:79:66:68:01';
export const BROADCAST = 'ff:ff:ff:ff:ff:ff';

/** An Ethernet II frame, tagged with `vlans` (outer first, 802.1Q TPID unless given), padded to 60 bytes. */
export function eth(type: number, payload: Buffer, opts: { src?: string; dst?: string; vlans?: Array<number | [number, number]> } = {}): Buffer {
  const tags = (opts.vlans ?? []).map((v) => (Array.isArray(v) ? Buffer.concat([u16(v[0]), u16(v[1])]) : Buffer.concat([u16(0x8100), u16(v)])));
  const frame = Buffer.concat([mac(opts.dst ?? MAC2), mac(opts.src ?? MAC1), ...tags, u16(type), payload]);
  return frame.length < 60 ? Buffer.concat([frame, Buffer.alloc(60 - frame.length)]) : frame;
}

/** The Internet checksum. */
function checksum(buf: Buffer): number {
  let sum = 0;
  for (let i = 0; i < buf.length; i += 2) sum += (buf[i] << 8) + (buf[i + 1] ?? 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

/** An IPv4 packet (20-byte header, checksummed). */
export function ipv4(src: string, dst: string, proto: number, payload: Buffer, opts: { ttl?: number; fragment?: number } = {}): Buffer {
  const header = Buffer.concat([
    Buffer.from([0x45, 0]), u16(20 + payload.length), u16(0x1234), u16(opts.fragment ?? 0x4000),
    Buffer.from([opts.ttl ?? 64, proto]), u16(0), ip4(src), ip4(dst),
  ]);
  header.writeUInt16BE(checksum(header), 10);
  return Buffer.concat([header, payload]);
}

/** An IPv6 packet. */
export function ipv6(src: string, dst: string, next: number, payload: Buffer, hopLimit = 64): Buffer {
  return Buffer.concat([u32(0x60000000), u16(payload.length), Buffer.from([next, hopLimit]), ip6(src), ip6(dst), payload]);
}

/** An ICMP or ICMPv6 echo (checksum left 0: the decoder does not check it). */
export function echo(type: number, id: number, seq: number, dataLength = 56): Buffer {
  return Buffer.concat([Buffer.from([type, 0]), u16(0), u16(id), u16(seq), Buffer.alloc(dataLength, 0x61)]);
}

/** A TCP segment with the given flag bits. */
export function tcp(sport: number, dport: number, flags: number, opts: { seq?: number; ack?: number; data?: Buffer } = {}): Buffer {
  return Buffer.concat([u16(sport), u16(dport), u32(opts.seq ?? 1000), u32(opts.ack ?? 0), Buffer.from([5 << 4, flags]), u16(64240), u16(0), u16(0), opts.data ?? Buffer.alloc(0)]);
}

/** A UDP datagram. */
export function udp(sport: number, dport: number, data: Buffer): Buffer {
  return Buffer.concat([u16(sport), u16(dport), u16(8 + data.length), u16(0), data]);
}

/** An Ethernet/IPv4 ARP packet. */
export function arp(op: number, senderMac: string, senderIp: string, targetMac: string, targetIp: string): Buffer {
  return Buffer.concat([u16(1), u16(0x0800), Buffer.from([6, 4]), u16(op), mac(senderMac), ip4(senderIp), mac(targetMac), ip4(targetIp)]);
}

/** An ICMPv6 neighbor solicitation for `target`. */
export function neighborSolicitation(target: string): Buffer {
  return Buffer.concat([Buffer.from([135, 0]), u16(0), u32(0), ip6(target)]);
}

/** A pcap global header. */
export function pcapHeader(opts: { bigEndian?: boolean; nanoseconds?: boolean; linkType?: number } = {}): Buffer {
  const h = Buffer.alloc(24);
  const w32 = (v: number, at: number) => (opts.bigEndian ? h.writeUInt32BE(v, at) : h.writeUInt32LE(v, at));
  const w16 = (v: number, at: number) => (opts.bigEndian ? h.writeUInt16BE(v, at) : h.writeUInt16LE(v, at));
  w32(opts.nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4, 0);
  w16(2, 4);
  w16(4, 6);
  w32(65535, 16);
  w32(opts.linkType ?? 1, 20);
  return h;
}

/** A pcap record header plus the frame (cut to `caplen` bytes when given). */
export function pcapRecord(frame: Buffer, seconds: number, frac: number, opts: { bigEndian?: boolean; caplen?: number } = {}): Buffer {
  const data = opts.caplen === undefined ? frame : frame.subarray(0, opts.caplen);
  const h = Buffer.alloc(16);
  const w32 = (v: number, at: number) => (opts.bigEndian ? h.writeUInt32BE(v, at) : h.writeUInt32LE(v, at));
  w32(seconds, 0);
  w32(frac, 4);
  w32(data.length, 8);
  w32(frame.length, 12);
  return Buffer.concat([h, data]);
}
