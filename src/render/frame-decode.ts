/**
 * Decodes a captured frame into the few facts a one-line summary needs:
 * Ethernet (with stacked 802.1Q/802.1ad tags), ARP, IPv4/IPv6, ICMP/ICMPv6,
 * TCP and UDP; PPP and Cisco HDLC frames carrying IP too. Frames cut short by
 * the capture (or lying about their lengths) decode as far as their bytes go
 * and are marked `truncated`.
 */

import { Short, View, type DecodedFrame } from './frame-view.js';
import { ipv4, ipv4Text, ipv6 } from './ip-decode.js';

export type { DecodedFrame } from './frame-view.js';
export { formatIpv6 } from './ip-decode.js';

/** TPIDs of VLAN tags: 802.1Q, 802.1ad, and the older QinQ values the switch also speaks. */
const VLAN_TPIDS = new Set([0x8100, 0x88a8, 0x9100, 0x9200]);
const ETHERTYPE_NAMES: Record<number, string> = { 0x88cc: 'LLDP', 0x8035: 'RARP', 0x8809: 'LACP', 0x88e5: 'MACsec', 0x8847: 'MPLS', 0x9000: 'LOOP' };
const LINKTYPE_ETHERNET = 1;
const LINKTYPE_PPP_SERIAL = 50;
const LINKTYPE_C_HDLC = 104;

/** A MAC address as lower-case colon-separated hex. */
export function formatMac(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':');
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
