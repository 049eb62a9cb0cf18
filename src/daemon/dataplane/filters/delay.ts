import { performance } from 'node:perf_hooks';
import { FrameHeap } from './frame-queues.js';
import type { DropCounter, FilterStage, FrameSink } from './sink.js';

/** Frames held at most by one delay stage; beyond it new frames are dropped (a queue bound, as netem's limit). */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * delay [latency_ms, jitter_ms]: each frame leaves latency ± jitter ms after it
 * arrived. Frames are scheduled, never slept on: a heap ordered by due time and
 * one timer, armed for the earliest frame, so throughput is unaffected.
 */
export class Delay implements FilterStage {
  private readonly queue = new FrameHeap();
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  private readonly fire = (): void => {
    this.timer = null;
    this.armedFor = Infinity;
    const now = this.release();
    if (this.queue.size > 0) this.arm(this.queue.peekDue(), now);
  };

  constructor(
    private readonly latencyMs: number,
    private readonly jitterMs: number,
    private readonly counter: DropCounter,
    private readonly next: FrameSink,
  ) {}

  push(frame: Buffer): void {
    if (this.queue.bytes + frame.length > MAX_QUEUED_BYTES) {
      this.counter.drops++;
      return;
    }
    const now = performance.now();
    // Under traffic, frames that are due leave on the next arrival, without waiting for the (1 ms grained) timer.
    if (this.queue.peekDue() <= now) this.release();
    let due = now + this.latencyMs;
    if (this.jitterMs > 0) due = Math.max(now, due + (Math.random() * 2 - 1) * this.jitterMs);
    this.queue.push(due, frame);
    if (due < this.armedFor) this.arm(due, now);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
    this.counter.drops += this.queue.size;
    this.queue.clear();
  }

  private arm(due: number, now: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = due;
    // Timers have 1 ms granularity and may fire up to 1 ms early: fire() re-arms for frames not yet due.
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(due - now)));
  }

  /** Sends every frame that is due (the armed timer is left alone: if it fires early, it re-arms). */
  private release(): number {
    const now = performance.now();
    while (this.queue.size > 0 && this.queue.peekDue() <= now) this.next.push(this.queue.pop());
    return now;
  }
}
