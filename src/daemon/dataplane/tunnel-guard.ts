/**
 * The dataplane's own UDP tunnels must never re-enter it through a host interface. A cloud port on
 * the loopback (or on the interface a remote compute's tunnels cross) captures the tunnel datagrams
 * of the very link it feeds; sent on into the lab, each comes back as a new datagram, and the frames
 * go round until the node stops (issue 26: 525 MB of pcap in 2 s). So a frame read from a host NIO
 * that is a UDP datagram from or to a port one of this dataplane's tunnels is bound to is dropped.
 * native/tunnel-guard.c is the same test for the native engine.
 */
import { QINQ_ETHERTYPES } from './vlan.js';

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
const UDP = 17;
/** IPv6 extension headers walked to reach the UDP header: hop-by-hop, routing, destination options (length in 8-byte units past the first 8), AH (4-byte units past the first 8), fragment (8 bytes). */
const HOP_BY_HOP = 0, ROUTING = 43, FRAGMENT = 44, AH = 51, DEST_OPTS = 60;
/** More tags or extension headers than this: not a frame worth walking (and not one of our tunnels). */
const MAX_TAGS = 2, MAX_EXTENSIONS = 8;
const TAG_TPIDS = new Set(QINQ_ETHERTYPES);

/** Big-endian 16 bits at `o` (the caller checked the length). */
const u16 = (f: Buffer, o: number): number => (f[o] << 8) | f[o + 1];

/** Byte offset of the UDP header in an Ethernet frame (behind up to two VLAN tags, IPv4 or IPv6), or -1 when it is no first fragment of a UDP datagram. */
export function udpHeaderOffset(f: Buffer): number {
  let o = 12;
  let type = f.length >= 14 ? u16(f, o) : -1;
  for (let tags = 0; TAG_TPIDS.has(type) && tags < MAX_TAGS; tags++) {
    o += 4;
    type = f.length >= o + 2 ? u16(f, o) : -1;
  }
  o += 2;
  if (type === ETHERTYPE_IPV4) {
    if (f.length < o + 20 || f[o] >> 4 !== 4 || f[o + 9] !== UDP) return -1;
    // A later fragment carries no UDP header.
    if ((u16(f, o + 6) & 0x1fff) !== 0) return -1;
    const udp = o + (f[o] & 0x0f) * 4;
    return f.length >= udp + 4 ? udp : -1;
  }
  if (type !== ETHERTYPE_IPV6 || f.length < o + 40 || f[o] >> 4 !== 6) return -1;
  let next = f[o + 6];
  o += 40;
  for (let n = 0; n < MAX_EXTENSIONS && f.length >= o + 8; n++) {
    if (next === UDP) return f.length >= o + 4 ? o : -1;
    if (next === FRAGMENT) {
      if ((u16(f, o + 2) & 0xfff8) !== 0) return -1;
      next = f[o];
      o += 8;
    } else if (next === HOP_BY_HOP || next === ROUTING || next === DEST_OPTS) {
      next = f[o];
      o += (f[o + 1] + 1) * 8;
    } else if (next === AH) {
      next = f[o];
      o += (f[o + 1] + 2) * 4;
    } else {
      return -1;
    }
  }
  return next === UDP && f.length >= o + 4 ? o : -1;
}

/** The UDP ports this dataplane's tunnels are bound to (counted: an IPv4 and an IPv6 tunnel may share a number). */
export class TunnelPorts {
  private readonly counts = new Uint16Array(65536);

  add(port: number): void {
    this.counts[port]++;
  }

  remove(port: number): void {
    if (this.counts[port] > 0) this.counts[port]--;
  }

  /** Whether the frame is a UDP datagram from or to one of the ports. */
  carries(frame: Buffer): boolean {
    const udp = udpHeaderOffset(frame);
    return udp >= 0 && (this.counts[u16(frame, udp)] > 0 || this.counts[u16(frame, udp + 2)] > 0);
  }
}
