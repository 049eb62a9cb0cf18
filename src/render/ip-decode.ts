/** IPv4 and IPv6 with the transports a lab sees: ICMP, ICMPv6, TCP and UDP (see frame-decode.ts). */
import type { DecodedFrame, View } from './frame-view.js';

/** An IPv6 address, shortest form (RFC 5952: longest run of zero groups as ::). */
export function formatIpv6(bytes: Buffer): string {
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

export function ipv4Text(bytes: Buffer): string {
  return [...bytes].join('.');
}

/** Decodes an IPv4 packet and its transport. */
export function ipv4(frame: DecodedFrame, v: View): void {
  frame.protocol = 'IPv4';
  const ihl = (v.u8(0) & 0x0f) * 4;
  const total = v.u16(2);
  const fragment = v.u16(6);
  const proto = v.u8(9);
  frame.fields.ttl = v.u8(8);
  frame.src = ipv4Text(v.bytes(12, 4));
  frame.dst = ipv4Text(v.bytes(16, 4));
  frame.info = `proto ${proto}, length ${total}`;
  if (ihl < 20) {
    frame.info = `bad header length ${ihl}`;
    return;
  }
  v.need(ihl);
  // The total length bounds the payload: Ethernet pads short frames to 60 bytes.
  const payload = v.from(ihl, Math.max(0, total - ihl));
  const offset = (fragment & 0x1fff) * 8;
  if (offset > 0) {
    frame.info = `fragment offset ${offset}, proto ${proto}, length ${total}`;
    return;
  }
  transport(frame, proto, payload, false);
}

/** IPv6 extension headers walked over to reach the upper layer. */
const IPV6_EXTENSIONS = new Set([0, 43, 60, 51]);

/** Decodes an IPv6 packet, past its extension headers, and its transport. */
export function ipv6(frame: DecodedFrame, v: View): void {
  frame.protocol = 'IPv6';
  let next = v.u8(6);
  frame.fields.hop_limit = v.u8(7);
  frame.src = formatIpv6(v.bytes(8, 16));
  frame.dst = formatIpv6(v.bytes(24, 16));
  let payload = v.from(40, v.u16(4));
  frame.info = `next header ${next}, length ${payload.length}`;
  while (IPV6_EXTENSIONS.has(next) || next === 44) {
    if (next === 44 && (payload.u16(2) & 0xfff8) !== 0) {
      frame.info = `fragment offset ${payload.u16(2) & 0xfff8}, next header ${payload.u8(0)}`;
      return;
    }
    const length = next === 44 ? 8 : next === 51 ? (payload.u8(1) + 2) * 4 : (payload.u8(1) + 1) * 8;
    next = payload.u8(0);
    payload.need(length);
    payload = payload.from(length);
  }
  transport(frame, next, payload, true);
}

function transport(frame: DecodedFrame, proto: number, v: View, v6: boolean): void {
  if (proto === 6) return tcp(frame, v, v6);
  if (proto === 17) return udp(frame, v, v6);
  if (proto === 1 && !v6) return icmp(frame, v);
  if (proto === 58 && v6) return icmpv6(frame, v);
}

function withPort(address: string, port: number, v6: boolean): string {
  return v6 ? `[${address}]:${port}` : `${address}:${port}`;
}

const TCP_FLAGS: Array<[number, string]> = [[0x02, 'S'], [0x01, 'F'], [0x08, 'P'], [0x04, 'R'], [0x20, 'U'], [0x40, 'E'], [0x80, 'W'], [0x10, '.']];

function tcp(frame: DecodedFrame, v: View, v6: boolean): void {
  [frame.protocol, frame.info] = ['TCP', ''];
  const [sport, dport] = [v.u16(0), v.u16(2)];
  frame.src = withPort(frame.src, sport, v6);
  frame.dst = withPort(frame.dst, dport, v6);
  Object.assign(frame.fields, { src_port: sport, dst_port: dport });
  const seq = v.u32(4);
  const ack = v.u32(8);
  const headerLength = (v.u8(12) >> 4) * 4;
  const flagBits = v.u8(13);
  const window = v.u16(14);
  const flags = TCP_FLAGS.filter(([bit]) => flagBits & bit).map(([, c]) => c).join('') || 'none';
  frame.fields.tcp_flags = flags;
  const dataLength = Math.max(0, v.length - headerLength);
  frame.info = `[${flags}] seq ${seq}${flagBits & 0x10 ? `, ack ${ack}` : ''}, win ${window}, length ${dataLength}`;
}

function udp(frame: DecodedFrame, v: View, v6: boolean): void {
  [frame.protocol, frame.info] = ['UDP', ''];
  const [sport, dport] = [v.u16(0), v.u16(2)];
  frame.src = withPort(frame.src, sport, v6);
  frame.dst = withPort(frame.dst, dport, v6);
  Object.assign(frame.fields, { src_port: sport, dst_port: dport });
  frame.info = `length ${Math.max(0, v.u16(4) - 8)}`;
}

const UNREACHABLE_CODES = ['net', 'host', 'protocol', 'port', 'needs fragmentation', 'source route failed', 'net unknown', 'host unknown'];

function echo(frame: DecodedFrame, v: View, name: string): void {
  const [id, seq] = [v.u16(4), v.u16(6)];
  Object.assign(frame.fields, { icmp_id: id, icmp_seq: seq });
  frame.info = `${name}, id ${id}, seq ${seq}, length ${v.length - 8}`;
}

function icmp(frame: DecodedFrame, v: View): void {
  [frame.protocol, frame.info] = ['ICMP', ''];
  const [type, code] = [v.u8(0), v.u8(1)];
  Object.assign(frame.fields, { icmp_type: type, icmp_code: code });
  if (type === 8) return echo(frame, v, 'echo request');
  if (type === 0) return echo(frame, v, 'echo reply');
  if (type === 3) frame.info = `${UNREACHABLE_CODES[code] ?? `code ${code}`} unreachable`;
  else if (type === 11) frame.info = code === 0 ? 'time exceeded in transit' : 'fragment reassembly time exceeded';
  else if (type === 5) frame.info = `redirect to ${ipv4Text(v.bytes(4, 4))}`;
  else frame.info = `type ${type}, code ${code}`;
}

const ICMPV6_NAMES: Record<number, string> = {
  1: 'destination unreachable', 2: 'packet too big', 3: 'time exceeded', 4: 'parameter problem',
  130: 'multicast listener query', 131: 'multicast listener report', 133: 'router solicitation',
  134: 'router advertisement', 137: 'redirect', 143: 'multicast listener report v2',
};

function icmpv6(frame: DecodedFrame, v: View): void {
  [frame.protocol, frame.info] = ['ICMPv6', ''];
  const [type, code] = [v.u8(0), v.u8(1)];
  Object.assign(frame.fields, { icmp_type: type, icmp_code: code });
  if (type === 128) return echo(frame, v, 'echo request');
  if (type === 129) return echo(frame, v, 'echo reply');
  if (type === 135) frame.info = `neighbor solicitation, who has ${formatIpv6(v.bytes(8, 16))}`;
  else if (type === 136) frame.info = `neighbor advertisement, tgt is ${formatIpv6(v.bytes(8, 16))}`;
  else frame.info = ICMPV6_NAMES[type] ?? `type ${type}, code ${code}`;
}
