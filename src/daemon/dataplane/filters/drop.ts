import { runBpf } from '../bpf-vm.js';
import type { BpfProgram } from '../bpf-compile.js';
import type { DropCounter, FilterStage, FrameSink } from './sink.js';

/** frequency_drop [N]: -1 drops every frame, N drops every Nth frame. */
export class FrequencyDrop implements FilterStage {
  private count = 0;
  constructor(private readonly every: number, private readonly counter: DropCounter, private readonly next: FrameSink) {}

  push(frame: Buffer): void {
    if (this.every < 0 || ++this.count >= this.every) {
      this.count = 0;
      this.counter.drops++;
      return;
    }
    this.next.push(frame);
  }
}

/** packet_loss [percent]: drops each frame with that probability. */
export class PacketLoss implements FilterStage {
  private readonly p: number;
  constructor(percent: number, private readonly counter: DropCounter, private readonly next: FrameSink) {
    this.p = percent / 100;
  }

  push(frame: Buffer): void {
    if (Math.random() < this.p) {
      this.counter.drops++;
      return;
    }
    this.next.push(frame);
  }
}

/** bpf [expressions]: drops frames matched by any of the compiled programs. */
export class BpfDrop implements FilterStage {
  constructor(private readonly programs: readonly BpfProgram[], private readonly counter: DropCounter, private readonly next: FrameSink) {}

  push(frame: Buffer): void {
    for (let i = 0; i < this.programs.length; i++) {
      if (runBpf(this.programs[i], frame) !== 0) {
        this.counter.drops++;
        return;
      }
    }
    this.next.push(frame);
  }
}
