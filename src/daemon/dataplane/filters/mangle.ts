import type { FilterStage, FrameSink } from './sink.js';

const ETH_HEADER = 14;

/** corrupt [percent]: with that probability, flips one random byte past the Ethernet header (in a copy: the received buffer may be shared). */
export class Corrupt implements FilterStage {
  private readonly p: number;
  constructor(percent: number, private readonly next: FrameSink) {
    this.p = percent / 100;
  }

  push(frame: Buffer): void {
    if (frame.length > ETH_HEADER && Math.random() < this.p) {
      const copy = Buffer.allocUnsafe(frame.length);
      frame.copy(copy);
      const at = ETH_HEADER + Math.floor(Math.random() * (frame.length - ETH_HEADER));
      copy[at] ^= 1 + Math.floor(Math.random() * 255); // never 0, so the byte always changes
      this.next.push(copy);
      return;
    }
    this.next.push(frame);
  }
}

/** duplicate [percent]: with that probability, sends the frame twice. */
export class Duplicate implements FilterStage {
  private readonly p: number;
  constructor(percent: number, private readonly next: FrameSink) {
    this.p = percent / 100;
  }

  push(frame: Buffer): void {
    this.next.push(frame);
    if (Math.random() < this.p) this.next.push(frame);
  }
}
