/**
 * Decodes a captured frame into the few facts a one-line summary needs:
 * Ethernet (with stacked 802.1Q/802.1ad tags), ARP, IPv4/IPv6, ICMP/ICMPv6,
 * TCP and UDP; PPP and Cisco HDLC frames carrying IP too. Frames cut short by
 * the capture (or lying about their lengths) decode as far as their bytes go
 * and are marked `truncated`.
 */

/** What a frame says, highest layer first in `protocol`/`info`. */
export interface DecodedFrame {
  /** The top protocol decoded: ARP, IPv4, IPv6, ICMP, ICMPv6, TCP, UDP, LLC, or an EtherType name/number. */
  protocol: string;
  /** Network-layer source (IP address; the MAC for frames with no IP), with `:port` for TCP/UDP. */
  src: string;
  dst: string;
  /** The summary after the protocol, e.g. `echo request, id 1, seq 2, length 64`. */
  info: string;
  ethSrc?: string;
  ethDst?: string;
  /** 802.1Q/802.1ad VLAN IDs, outermost first. */
  vlans: number[];
  /** Protocol details for --json (ports, flags, ICMP type/code/id/seq, TTL, ARP op). */
  fields: Record<string, string | number>;
  truncated: boolean;
}

/** TPIDs of VLAN tags: 802.1Q, 802.1ad, and the older QinQ values the switch also speaks. */
const VLAN_TPIDS = new Set([0x8100, 0x88a8, 0x9100, 0x9200]);
const ETHERTYPE_NAMES: Record<number, string> = { 0x88cc: 'LLDP', 0x8035: 'RARP', 0x8809: 'LACP', 0x88e5: 'MACsec', 0x8847: 'MPLS', 0x9000: 'LOOP' };
const LINKTYPE_ETHERNET = 1;
const LINKTYPE_PPP_SERIAL = 50;
const LINKTYPE_C_HDLC = 104;

/** Thrown inside the decoder when a header runs past the captured bytes. */
class Short extends Error {}

/** Bounds-checked reads over one frame. */
class View {
  constructor(readonly buf: Buffer, readonly start = 0, readonly end = buf.length) {}
  get length(): number {
    return this.end - this.start;
  }
  need(n: number): void {
    if (n > this.length) throw new Short();
  }
  u8(at: number): number {
    this.need(at + 1);
    return this.buf[this.start + at];
  }
  u16(at: number): number {
    this.need(at + 2);
    return this.buf.readUInt16BE(this.start + at);
  }
  u32(at: number): number {
    this.need(at + 4);
    return this.buf.readUInt32BE(this.start + at);
  }
  bytes(at: number, n: number): Buffer {
    this.need(at + n);
    return this.buf.subarray(this.start + at, this.start + at + n);
  }
  /** The bytes from `at`, at most `max` of them (a length field may promise more than was captured). */
  from(at: number, max = Infinity): View {
    const start = Math.min(this.start + at, this.end);
    return new View(this.buf, start, Math.min(this.end, start + max));
  }
}

/** A MAC address as lower-case colon-separated hex. */
export function formatMac(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

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

/** Decodes one frame of the given LINKTYPE. */
export function decodeFrame(data: Buffer, linkType = LINKTYPE_ETHERNET): DecodedFrame {
  const frame: DecodedFrame = { protocol: '', src: '', dst: '', info: '', vlans: [], fields: {}, truncated: false };
  const view = new View(data);
  try {
    if (linkType === LINKTYPE_ETHERNET) ethernet(frame, view);
    else if (linkType === LINKTYPE_PPP_SERIAL) ppp(frame, view);
    else if (linkType === LINKTYPE_C_HDLC) hdlc(frame, view);
    else Object.assign(frame, { protocol: `linktype ${linkType}`, info: `length ${data.length}` });
  } catch (err) {
    if (!(err instanceof Short)) throw err;
    frame.truncated = true;
    if (!frame.protocol) frame.protocol = linkType === LINKTYPE_ETHERNET ? 'Ethernet' : `linktype ${linkType}`;
    frame.info = frame.info ? `${frame.info} [truncated]` : '[truncated]';
  }
  return frame;
}

function ethernet(frame: DecodedFrame, v: View): void {
  frame.ethDst = formatMac(v.bytes(0, 6));
  frame.ethSrc = formatMac(v.bytes(6, 6));
  [frame.src, frame.dst, frame.protocol] = [frame.ethSrc, frame.ethDst, 'Ethernet'];
  let at = 12;
  let type = v.u16(at);
  while (VLAN_TPIDS.has(type)) {
    frame.vlans.push(v.u16(at + 2) & 0x0fff);
    at += 4;
    type = v.u16(at);
  }
  const payload = v.from(at + 2);
  if (type <= 1500) return llc(frame, payload.from(0, type));
  etherType(frame, type, payload);
}

function etherType(frame: DecodedFrame, type: number, payload: View): void {
  if (type === 0x0800) return ipv4(frame, payload);
  if (type === 0x86dd) return ipv6(frame, payload);
  if (type === 0x0806) return arp(frame, payload);
  frame.protocol = ETHERTYPE_NAMES[type] ?? `ethertype 0x${type.toString(16).padStart(4, '0')}`;
  frame.info = `length ${payload.length}`;
}

/** IEEE 802.3 frames carry a length and an LLC header; BPDUs (STP) are the ones a lab sees. */
function llc(frame: DecodedFrame, v: View): void {
  const dsap = v.u8(0);
  const ssap = v.u8(1);
  frame.protocol = dsap === 0x42 && ssap === 0x42 ? 'STP' : 'LLC';
  frame.info = `dsap 0x${dsap.toString(16)} ssap 0x${ssap.toString(16)}, length ${v.length}`;
}

/** PPP in HDLC-like framing (RFC 1662): ff 03, then a 16-bit protocol (0x0021 IPv4, 0x0057 IPv6). */
function ppp(frame: DecodedFrame, v: View): void {
  const at = v.u8(0) === 0xff && v.u8(1) === 0x03 ? 2 : 0;
  const proto = v.u16(at);
  frame.protocol = 'PPP';
  if (proto === 0x0021) return ipv4(frame, v.from(at + 2));
  if (proto === 0x0057) return ipv6(frame, v.from(at + 2));
  frame.info = `protocol 0x${proto.toString(16).padStart(4, '0')}, length ${v.length}`;
}

/** Cisco HDLC: address, control, then an EtherType. */
function hdlc(frame: DecodedFrame, v: View): void {
  frame.protocol = 'C-HDLC';
  const type = v.u16(2);
  if (type === 0x8035) {
    frame.info = `SLARP, length ${v.length}`;
    return;
  }
  etherType(frame, type, v.from(4));
}

function arp(frame: DecodedFrame, v: View): void {
  frame.protocol = 'ARP';
  const [htype, ptype, hlen, plen, op] = [v.u16(0), v.u16(2), v.u8(4), v.u8(5), v.u16(6)];
  frame.fields.arp_op = op;
  if (htype !== 1 || ptype !== 0x0800 || hlen !== 6 || plen !== 4) {
    frame.info = `hardware ${htype} protocol 0x${ptype.toString(16)} op ${op}`;
    return;
  }
  const senderMac = formatMac(v.bytes(8, 6));
  const senderIp = ipv4Text(v.bytes(14, 4));
  const targetIp = ipv4Text(v.bytes(24, 4));
  if (op === 1) frame.info = `who-has ${targetIp} tell ${senderIp}${senderIp === targetIp ? ' (gratuitous)' : ''}`;
  else if (op === 2) frame.info = `${senderIp} is-at ${senderMac}`;
  else frame.info = `op ${op} ${senderIp} > ${targetIp}`;
}

function ipv4Text(bytes: Buffer): string {
  return [...bytes].join('.');
}

function ipv4(frame: DecodedFrame, v: View): void {
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

function ipv6(frame: DecodedFrame, v: View): void {
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
