import { performance } from 'node:perf_hooks';
import { FrameRing } from './frame-queues.js';
import type { DropCounter, FilterStage, FrameSink } from './sink.js';

/**
 * rate [kbit/s] (emuctl extension): a token-bucket shaper. Frames that find
 * no tokens wait in a FIFO bounded to ~100 ms of traffic (at least 64 KiB);
 * frames beyond it are dropped, as a router's output queue would.
 */
export class Rate implements FilterStage {
  private readonly bytesPerMs: number;
  private readonly burst: number;
  private readonly maxQueued: number;
  private readonly queue = new FrameRing();
  private tokens: number;
  private last = performance.now();
  private timer: NodeJS.Timeout | null = null;
  private readonly fire = (): void => this.drain();

  constructor(kbps: number, private readonly counter: DropCounter, private readonly next: FrameSink) {
    this.bytesPerMs = kbps / 8; // kbit/s = 1000 bit/s: kbps * 1000 / 8 bytes/s = kbps / 8 bytes/ms
    this.burst = Math.max(3028, this.bytesPerMs * 5);
    this.maxQueued = Math.max(65536, this.bytesPerMs * 100);
    this.tokens = this.burst;
  }

  push(frame: Buffer): void {
    this.refill();
    // Queued frames go first (on arrivals too, not only on the timer), so order is kept.
    if (this.queue.size > 0) this.sendQueued();
    // Tokens may go negative by one frame, so a frame larger than the bucket still passes.
    if (this.queue.size === 0 && this.tokens >= 0) {
      this.tokens -= frame.length;
      this.next.push(frame);
      return;
    }
    if (this.queue.bytes + frame.length > this.maxQueued) {
      this.counter.drops++;
      return;
    }
    this.queue.push(frame);
    if (!this.timer) this.schedule();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.counter.drops += this.queue.size;
    this.queue.clear();
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.bytesPerMs);
    this.last = now;
  }

  private drain(): void {
    this.timer = null;
    this.refill();
    this.sendQueued();
    if (this.queue.size > 0) this.schedule();
  }

  private sendQueued(): void {
    while (this.queue.size > 0 && this.tokens >= 0) {
      const frame = this.queue.shift();
      this.tokens -= frame.length;
      this.next.push(frame);
    }
  }

  private schedule(): void {
    const wait = this.tokens >= 0 ? 1 : Math.ceil(-this.tokens / this.bytesPerMs);
    this.timer = setTimeout(this.fire, Math.max(1, wait));
  }
}
