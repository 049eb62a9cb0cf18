import type { BpfProgram } from '../bpf-compile.js';
import { validateBpf } from '../bpf-vm.js';
import { InvalidError } from '../../errors.js';
import { Delay } from './delay.js';
import { BpfDrop, FrequencyDrop, PacketLoss } from './drop.js';
import { Corrupt, Duplicate } from './mangle.js';
import { Rate } from './rate.js';
import type { DropCounter, FilterStage, FrameSink } from './sink.js';
import type { FilterSpec } from './spec.js';

/** A port's built filter pipeline: frames go in at `head` and come out at the tail sink given to buildChain. */
export interface FilterChain {
  head: FrameSink;
  /** Stops timers and drops (counting) the frames the timed stages still hold. */
  dispose(): void;
}

/**
 * Builds the stages the spec turns on, in a fixed order: the dropping filters
 * first (bpf, frequency_drop, packet_loss), then corrupt and duplicate, then
 * the timed ones (rate, delay), so delayed frames are never dropped late.
 */
export function buildChain(spec: FilterSpec, programs: readonly BpfProgram[], counter: DropCounter, tail: FrameSink): FilterChain {
  for (const p of programs) {
    const err = validateBpf(p);
    if (err) throw new InvalidError(`bpf program rejected: ${err}`);
  }
  const timed: FilterStage[] = [];
  let head: FrameSink = tail;
  // Built back to front: each stage is constructed with the one after it.
  if (spec.delayMs > 0) {
    const delay = new Delay(spec.delayMs, spec.jitterMs, counter, head);
    timed.push(delay);
    head = delay;
  }
  if (spec.rateKbps > 0) {
    const rate = new Rate(spec.rateKbps, counter, head);
    timed.push(rate);
    head = rate;
  }
  if (spec.duplicate > 0) head = new Duplicate(spec.duplicate, head);
  if (spec.corrupt > 0) head = new Corrupt(spec.corrupt, head);
  if (spec.packetLoss > 0) head = new PacketLoss(spec.packetLoss, counter, head);
  if (spec.frequencyDrop !== 0) head = new FrequencyDrop(spec.frequencyDrop, counter, head);
  if (programs.length > 0) head = new BpfDrop(programs, counter, head);
  return {
    head,
    dispose: () => {
      for (const s of timed) s.dispose?.();
    },
  };
}
