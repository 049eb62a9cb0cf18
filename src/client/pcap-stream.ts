/**
 * An incremental reader of libpcap streams: the 24-byte global header, then
 * records of a 16-byte header (ts_sec, ts_frac, incl_len, orig_len) and
 * incl_len bytes of frame. Chunks may split anything anywhere. Both byte
 * orders, and the nanosecond-timestamp magic (a1b23c4d), are read.
 */

/** The global header of a pcap stream. */
export interface PcapHeader {
  littleEndian: boolean;
  /** True for the a1b23c4d magic: record timestamps count nanoseconds, not microseconds. */
  nanoseconds: boolean;
  versionMajor: number;
  versionMinor: number;
  snaplen: number;
  /** LINKTYPE_* number (1 Ethernet, 50 PPP, 104 Cisco HDLC, 107 Frame Relay, 11 ATM RFC 1483). */
  linkType: number;
}

/** One captured frame. */
export interface PcapRecord {
  /** Seconds since the epoch. */
  seconds: number;
  /** Nanoseconds within the second (microsecond files are scaled up). */
  nanos: number;
  /** The frame's length on the wire; `data` holds less when the capture cut it. */
  originalLength: number;
  data: Buffer;
}

export const PCAP_GLOBAL_HEADER_LENGTH = 24;
export const PCAP_RECORD_HEADER_LENGTH = 16;
/** pcapng starts with a Section Header Block of this type. */
const PCAPNG_MAGIC = 0x0a0d0d0a;
/** No sane capture has a record this big (libpcap's own limit is 256 KiB). */
const MAX_RECORD = 16 * 1024 * 1024;

/** The stream is not a pcap stream, or a record header makes no sense. */
export class PcapFormatError extends Error {}

/** Feeds chunks in, gets the header and whole records out. */
export class PcapStreamParser {
  /** The global header, once its 24 bytes have arrived. */
  header?: PcapHeader;
  /** Bytes of the stream made of the header and whole records (a prefix that is a valid pcap file). */
  completeBytes = 0;
  /** Records read so far. */
  records = 0;
  private pending: Buffer = Buffer.alloc(0);

  /** Takes the next chunk and returns the records it completed. */
  push(chunk: Buffer): PcapRecord[] {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let offset = 0;
    const out: PcapRecord[] = [];
    if (!this.header) {
      if (buf.length < PCAP_GLOBAL_HEADER_LENGTH) {
        this.keep(buf, 0);
        return out;
      }
      this.header = readGlobalHeader(buf);
      offset = PCAP_GLOBAL_HEADER_LENGTH;
      this.completeBytes = offset;
    }
    const { littleEndian: le, nanoseconds } = this.header;
    const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
    while (buf.length - offset >= PCAP_RECORD_HEADER_LENGTH) {
      const caplen = u32(offset + 8);
      if (caplen > MAX_RECORD) throw new PcapFormatError(`corrupt pcap stream: record ${this.records + 1} claims ${caplen} bytes`);
      const end = offset + PCAP_RECORD_HEADER_LENGTH + caplen;
      if (end > buf.length) break;
      const frac = u32(offset + 4);
      out.push({
        seconds: u32(offset),
        nanos: nanoseconds ? frac : frac * 1000,
        originalLength: u32(offset + 12),
        data: buf.subarray(offset + PCAP_RECORD_HEADER_LENGTH, end),
      });
      offset = end;
      this.completeBytes += PCAP_RECORD_HEADER_LENGTH + caplen;
      this.records++;
    }
    this.keep(buf, offset);
    return out;
  }

  /** Bytes received that do not yet make a whole header or record (a truncated tail if the stream ended). */
  get pendingBytes(): number {
    return this.pending.length;
  }

  private keep(buf: Buffer, offset: number): void {
    // Copy the (small) tail so the big chunk it came from can be freed.
    this.pending = offset < buf.length ? Buffer.from(buf.subarray(offset)) : Buffer.alloc(0);
  }
}

function readGlobalHeader(buf: Buffer): PcapHeader {
  const magicLE = buf.readUInt32LE(0);
  const formats: Record<number, { littleEndian: boolean; nanoseconds: boolean }> = {
    0xa1b2c3d4: { littleEndian: true, nanoseconds: false },
    0xd4c3b2a1: { littleEndian: false, nanoseconds: false },
    0xa1b23c4d: { littleEndian: true, nanoseconds: true },
    0x4d3cb2a1: { littleEndian: false, nanoseconds: true },
  };
  const format = formats[magicLE];
  if (!format) {
    if (magicLE === PCAPNG_MAGIC) throw new PcapFormatError('the stream is pcapng, not pcap; read it with tshark');
    throw new PcapFormatError(`not a pcap stream (magic 0x${magicLE.toString(16).padStart(8, '0')})`);
  }
  const u16 = (at: number) => (format.littleEndian ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at: number) => (format.littleEndian ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  return {
    ...format,
    versionMajor: u16(4),
    versionMinor: u16(6),
    snaplen: u32(16),
    // The upper bits of the link type field carry FCS flags in newer files.
    linkType: u32(20) & 0x0fffffff,
  };
}

/** What a pcap source yields: the header first, then each record. */
export type PcapEvent = { kind: 'header'; header: PcapHeader } | { kind: 'record'; record: PcapRecord };

/**
 * Reads a pcap byte stream (e.g. an HTTP response) as events. A stream that
 * ends inside a record ends the iteration after the last whole record; a stream
 * that ends before the global header is an error.
 */
export async function* readPcapStream(source: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<PcapEvent> {
  const parser = new PcapStreamParser();
  for await (const chunk of source) {
    const hadHeader = parser.header !== undefined;
    const records = parser.push(typeof chunk === 'string' ? Buffer.from(chunk, 'binary') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (!hadHeader && parser.header) yield { kind: 'header', header: parser.header };
    for (const record of records) yield { kind: 'record', record };
  }
  if (!parser.header) throw new PcapFormatError('the pcap stream ended before its global header');
}

/** The record's time as an ISO 8601 UTC string with the file's precision (µs or ns). */
export function recordIsoTime(record: PcapRecord, nanoseconds = false): string {
  const iso = new Date(record.seconds * 1000).toISOString().slice(0, 19);
  const frac = nanoseconds ? String(record.nanos).padStart(9, '0') : String(Math.floor(record.nanos / 1000)).padStart(6, '0');
  return `${iso}.${frac}Z`;
}
