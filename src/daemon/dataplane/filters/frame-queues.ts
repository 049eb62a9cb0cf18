/**
 * Frame queues for the timed filters, kept in parallel arrays so queuing a
 * frame allocates nothing but array growth.
 */

/** Min-heap of frames by due time (ms); equal due times leave in arrival order. */
export class FrameHeap {
  private readonly due: number[] = [];
  private readonly seq: number[] = [];
  private readonly frames: Buffer[] = [];
  private nextSeq = 0;
  bytes = 0;

  get size(): number {
    return this.frames.length;
  }

  /** Due time of the earliest frame (Infinity when empty). */
  peekDue(): number {
    return this.frames.length ? this.due[0] : Infinity;
  }

  push(due: number, frame: Buffer): void {
    const { due: d, seq: s, frames: f } = this;
    const seq = this.nextSeq++;
    let i = f.length;
    d.push(due);
    s.push(seq);
    f.push(frame);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (d[parent] < due || (d[parent] === due && s[parent] < seq)) break;
      d[i] = d[parent];
      s[i] = s[parent];
      f[i] = f[parent];
      i = parent;
    }
    d[i] = due;
    s[i] = seq;
    f[i] = frame;
    this.bytes += frame.length;
  }

  /** Removes and returns the earliest frame; call only when size > 0. */
  pop(): Buffer {
    const { due: d, seq: s, frames: f } = this;
    const top = f[0];
    const lastDue = d.pop()!;
    const lastSeq = s.pop()!;
    const last = f.pop()!;
    const n = f.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && (d[c + 1] < d[c] || (d[c + 1] === d[c] && s[c + 1] < s[c]))) c++;
        if (lastDue < d[c] || (lastDue === d[c] && lastSeq < s[c])) break;
        d[i] = d[c];
        s[i] = s[c];
        f[i] = f[c];
        i = c;
      }
      d[i] = lastDue;
      s[i] = lastSeq;
      f[i] = last;
    }
    this.bytes -= top.length;
    if (n === 0) this.nextSeq = 0;
    return top;
  }

  clear(): void {
    this.due.length = this.seq.length = this.frames.length = 0;
    this.bytes = 0;
    this.nextSeq = 0;
  }
}

/** FIFO of frames on a growable ring. */
export class FrameRing {
  private buf: (Buffer | undefined)[] = new Array(64);
  private head = 0;
  size = 0;
  bytes = 0;

  push(frame: Buffer): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & (this.buf.length - 1)] = frame;
    this.size++;
    this.bytes += frame.length;
  }

  /** Removes and returns the oldest frame; call only when size > 0. */
  shift(): Buffer {
    const frame = this.buf[this.head]!;
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.size--;
    this.bytes -= frame.length;
    return frame;
  }

  clear(): void {
    this.buf.fill(undefined);
    this.head = this.size = this.bytes = 0;
  }

  private grow(): void {
    const old = this.buf;
    const next: (Buffer | undefined)[] = new Array(old.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & (old.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
