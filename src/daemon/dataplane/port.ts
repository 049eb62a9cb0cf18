import { buildChain, type FilterChain } from './filters/chain.js';
import type { FrameSink } from './filters/sink.js';
import { isPassThrough, type FilterSpec } from './filters/spec.js';
import type { BpfProgram } from './bpf-compile.js';
import type { PcapWriter } from './pcap-writer.js';
import type { PortCounters } from './types.js';
import { ETH_HEADER, type PortMode, type VlanSettings } from './vlan.js';

/** A port's link to the outside: a UDP tunnel (nio-udp.ts) or a host interface (nio-host.ts). One frame per send. */
export interface Nio {
  send(frame: Buffer): void;
  close(): Promise<void>;
}

/** What a port hands its received frames to: the node's switching (or hub) logic. */
export interface Forwarder {
  forward(ingress: Port, frame: Buffer): void;
}

/** The node a port belongs to, as the frame path sees it. */
export interface PortOwner {
  readonly suspended: boolean;
  readonly engine: Forwarder;
}

/**
 * One port of a switch or hub. The frame path: receive → runt check →
 * suspend → filters → capture → the node's forwarding → transmit on the
 * egress ports (capture again, as the frame goes on the wire).
 */
export class Port implements FrameSink {
  readonly counters: PortCounters;
  mode: PortMode;
  vlan: number;
  tpid: number;
  nio: Nio | null = null;
  suspended = false;
  capture: PcapWriter | null = null;
  private head: FrameSink = this;
  private chain: FilterChain | null = null;

  /** The NIO's datagram listener (created once per port, not per frame). */
  readonly receive = (frame: Buffer): void => {
    const c = this.counters;
    c.framesIn++;
    c.bytesIn += frame.length;
    if (frame.length < ETH_HEADER || this.suspended || this.owner.suspended) {
      c.drops++;
      return;
    }
    this.head.push(frame);
  };

  constructor(readonly number: number, settings: VlanSettings, private readonly owner: PortOwner) {
    this.mode = settings.mode;
    this.vlan = settings.vlan;
    this.tpid = settings.tpid;
    this.counters = Port.zeroCounters(number);
  }

  private static zeroCounters(port: number): PortCounters {
    return { port, framesIn: 0, bytesIn: 0, framesOut: 0, bytesOut: 0, drops: 0, errors: 0 };
  }

  /** Zeroes the counters in place (filters and the NIO hold a reference to them). */
  resetCounters(): void {
    Object.assign(this.counters, Port.zeroCounters(this.number));
  }

  /** Applies new VLAN settings (live: the next frame uses them). */
  configure(settings: VlanSettings): void {
    this.mode = settings.mode;
    this.vlan = settings.vlan;
    this.tpid = settings.tpid;
  }

  /** Frames that passed the filters: capture, then switching. */
  push(frame: Buffer): void {
    if (this.capture !== null) this.capture.record(frame);
    this.owner.engine.forward(this, frame);
  }

  /** Sends a frame out of this port (as it goes on the wire, tags included). */
  transmit(frame: Buffer): void {
    const nio = this.nio;
    if (nio === null) return;
    const c = this.counters;
    if (this.suspended) {
      c.drops++;
      return;
    }
    c.framesOut++;
    c.bytesOut += frame.length;
    if (this.capture !== null) this.capture.record(frame);
    nio.send(frame);
  }

  /** Replaces the filter pipeline (frames held by the old one are dropped and counted). */
  setFilters(spec: FilterSpec, programs: readonly BpfProgram[]): void {
    const chain = isPassThrough(spec) ? null : buildChain(spec, programs, this.counters, this);
    this.chain?.dispose();
    this.chain = chain;
    this.head = chain ? chain.head : this;
  }

  /** Removes every filter. */
  clearFilters(): void {
    this.chain?.dispose();
    this.chain = null;
    this.head = this;
  }
}
