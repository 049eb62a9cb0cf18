/** What the frame decoders share: the decoded frame, and bounds-checked reads over the frame's bytes. */

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

/** Thrown inside the decoder when a header runs past the captured bytes. */
export class Short extends Error {}

/** Bounds-checked reads over one frame. */
export class View {
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

