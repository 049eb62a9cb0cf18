import type { FileHandle } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';

export const PCAP_SNAPLEN = 65535;
const GLOBAL_HEADER = 24;
const RECORD_HEADER = 16;
/** A batch is handed to the file once it holds this much, or FLUSH_MS after its first record. */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 50;
/** Room for one more maximal record past the flush threshold, so record() never has to split. */
const BATCH_SIZE = FLUSH_BYTES + RECORD_HEADER + PCAP_SNAPLEN;
/** Batches waiting for a slow disk beyond this are dropped whole (records counted in `dropped`). */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/** The 24-byte libpcap global header: magic a1b2c3d4, v2.4, thiszone 0, sigfigs 0, snaplen, network. */
export function pcapGlobalHeader(linkType: number): Buffer {
  // Written little-endian: readers detect the byte order from the magic.
  const h = Buffer.alloc(GLOBAL_HEADER);
  h.writeUInt32LE(0xa1b2c3d4, 0);
  h.writeUInt16LE(2, 4);
  h.writeUInt16LE(4, 6);
  h.writeInt32LE(0, 8);
  h.writeUInt32LE(0, 12);
  h.writeUInt32LE(PCAP_SNAPLEN, 16);
  h.writeUInt32LE(linkType, 20);
  return h;
}

/**
 * A pcap file that grows in batches: records are copied into a batch buffer
 * and written with one writev per ~64 KiB or ~50 ms, always whole records, so
 * the file parses at any moment (and after a kill -9, short of the last batch).
 * record() does no I/O and no allocation.
 */
export class PcapWriter {
  /** Records lost because the disk could not keep up or a write failed. */
  dropped = 0;
  /** First write error, after which records are dropped. */
  error: Error | null = null;
  private batch: Buffer = Buffer.allocUnsafe(BATCH_SIZE);
  private used = 0;
  private records = 0;
  private readonly spare: Buffer[] = [];
  private queue: { buf: Buffer; len: number; records: number }[] = [];
  private queuedBytes = 0;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly onTimer = (): void => {
    this.timer = null;
    this.seal();
  };

  /** Bytes of the file that hold the header and whole records: a failed write is cut back to this. */
  private good: number;

  private constructor(private readonly fh: FileHandle, size: number, private readonly failed: (err: NodeJS.ErrnoException) => void) {
    this.good = size;
  }

  /**
   * Writes to `fh` (opened by the caller, truncated or appending; the writer closes it); an empty file
   * gets the global header before this resolves. `failed` is called once if a write fails (full disk):
   * the file then ends on its last whole record and the writer records no more.
   */
  static async create(fh: FileHandle, linkType: number, failed: (err: NodeJS.ErrnoException) => void = () => {}): Promise<PcapWriter> {
    let size: number;
    try {
      size = (await fh.stat()).size;
      if (size === 0) size = (await fh.write(pcapGlobalHeader(linkType))).bytesWritten;
    } catch (e) {
      await fh.close();
      throw e;
    }
    return new PcapWriter(fh, size, failed);
  }

  /** Appends one frame with the current time (microseconds), truncated to the snaplen. */
  record(frame: Uint8Array): void {
    if (this.closed || this.error) {
      this.dropped++;
      return;
    }
    const t = performance.timeOrigin + performance.now();
    const sec = Math.floor(t / 1000);
    const usec = Math.floor((t - sec * 1000) * 1000);
    const caplen = frame.length < PCAP_SNAPLEN ? frame.length : PCAP_SNAPLEN;
    const b = this.batch;
    let o = this.used;
    b.writeUInt32LE(sec, o);
    b.writeUInt32LE(usec, o + 4);
    b.writeUInt32LE(caplen, o + 8);
    b.writeUInt32LE(frame.length, o + 12);
    o += RECORD_HEADER;
    b.set(caplen === frame.length ? frame : frame.subarray(0, caplen), o);
    this.used = o + caplen;
    this.records++;
    if (this.used >= FLUSH_BYTES) this.seal();
    else if (this.timer === null) this.timer = setTimeout(this.onTimer, FLUSH_MS);
  }

  /** Writes what is buffered, waits for every write, and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.seal();
    this.closed = true;
    while (this.writing) await this.writing;
    await this.fh.close();
  }

  /** Moves the current batch to the write queue and starts a write if none is running. */
  private seal(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.used === 0) return;
    if (this.queuedBytes + this.used > MAX_QUEUED_BYTES) {
      this.dropped += this.records;
    } else {
      this.queue.push({ buf: this.batch, len: this.used, records: this.records });
      this.queuedBytes += this.used;
      this.batch = this.spare.pop() ?? Buffer.allocUnsafe(BATCH_SIZE);
    }
    this.used = 0;
    this.records = 0;
    // Cleared in a callback, never inside writeQueued: after a failed write it may finish without awaiting.
    if (!this.writing) this.writing = this.writeQueued().then(() => void (this.writing = null));
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batches = this.queue;
      this.queue = [];
      try {
        let views = batches.map((q) => q.buf.subarray(0, q.len));
        // One writev per round; a short write (rare on files) is resumed until every record is out.
        if (this.error) throw this.error;
        for (;;) {
          const { bytesWritten } = await this.fh.writev(views);
          if (bytesWritten === 0) throw Object.assign(new Error('pcap write made no progress'), { code: 'EIO' });
          views = skipBytes(views, bytesWritten);
          if (views.length === 0) break;
        }
        for (const q of batches) this.good += q.len;
      } catch (e) {
        for (const q of batches) this.dropped += q.records;
        if (!this.error) {
          this.error = e as Error;
          await this.fh.truncate(this.good).catch(() => {});
          this.failed(e as NodeJS.ErrnoException);
        }
      }
      for (const q of batches) {
        this.queuedBytes -= q.len;
        if (this.spare.length < 4) this.spare.push(q.buf);
      }
    }
  }
}

function skipBytes(views: Buffer[], n: number): Buffer[] {
  const out: Buffer[] = [];
  for (const v of views) {
    if (n >= v.length) {
      n -= v.length;
      continue;
    }
    out.push(n > 0 ? v.subarray(n) : v);
    n = 0;
  }
  return out;
}
