import { performance } from 'node:perf_hooks';
import { MacTable, macKey } from './mac-table.js';
import type { Forwarder, Port } from './port.js';
import type { MacTableEntry } from './types.js';
import { DOT1Q, QINQ, TPID_8021Q, isTagTpid, popTag, pushTag } from './vlan.js';

/** The ports a node forwards between: those with a live NIO. */
export interface ActivePorts {
  readonly active: readonly Port[];
}

/**
 * An Ethernet switch with dynamips' VLAN semantics. A frame is classified on
 * ingress into a VLAN and its "inner" form (the frame as an access port of
 * that VLAN would carry it):
 *  - access: the port's VLAN, the frame as is;
 *  - dot1q: a tagged frame (0x8100/0x88A8/0x9100/0x9200) is in its tag's VLAN,
 *    inner = tag removed; an untagged one is in the native VLAN;
 *  - qinq: the port's VLAN, inner = the whole customer frame, tags included
 *    (untagged customer frames too, where dynamips drops them).
 * On egress: access and qinq ports of that VLAN send the inner form (so a qinq
 * port pops the outer tag); a dot1q port sends it untagged in its native VLAN
 * and tagged otherwise (the tag a qinq ingress port pushes carries its ethertype).
 * Learning is per VLAN; broadcast, multicast and unknown unicast flood the VLAN.
 */
export class SwitchEngine implements Forwarder {
  readonly macs: MacTable<Port>;
  // The frame being forwarded and its lazily built egress forms: forward() is
  // synchronous, so instance fields serve as scratch without a per-frame object.
  private frame: Buffer | null = null;
  private vid = 0;
  private pushTpid = TPID_8021Q;
  private inner: Buffer | null = null;
  private outer: Buffer | null = null;

  constructor(private readonly node: ActivePorts, ageingSeconds: number) {
    this.macs = new MacTable<Port>(ageingSeconds * 1000);
  }

  /** Switches one frame received (and filtered) on `ingress`. */
  forward(ingress: Port, frame: Buffer): void {
    let vid = ingress.vlan;
    let tagged = false;
    if (ingress.mode === DOT1Q && isTagTpid((frame[12] << 8) | frame[13])) {
      vid = ((frame[14] << 8) | frame[15]) & 0x0fff;
      // A truncated tag, or VLAN 0 (priority tag), is not switched, as in dynamips.
      if (frame.length < 18 || vid === 0) {
        ingress.counters.drops++;
        return;
      }
      tagged = true;
    }
    this.frame = frame;
    this.vid = vid;
    this.pushTpid = ingress.mode === QINQ ? ingress.tpid : TPID_8021Q;
    this.inner = tagged ? null : frame;
    this.outer = tagged ? frame : null;

    const now = performance.now();
    // Group (multicast) source addresses are never learned.
    if ((frame[6] & 1) === 0) this.macs.learn(vid, macKey(frame, 6), ingress, now);
    const out = (frame[0] & 1) === 0 ? this.macs.lookup(vid, macKey(frame, 0), now) : null;
    if (out !== null) {
      if (out !== ingress) this.emit(out);
    } else {
      const active = this.node.active;
      for (let i = 0; i < active.length; i++) {
        if (active[i] !== ingress) this.emit(active[i]);
      }
    }
    this.frame = this.inner = this.outer = null;
  }

  /** The live MAC table. */
  entries(): MacTableEntry[] {
    return this.macs.entries(performance.now());
  }

  private emit(out: Port): void {
    if (out.mode === DOT1Q) {
      out.transmit(out.vlan === this.vid ? this.innerForm() : this.outerForm());
    } else if (out.vlan === this.vid) {
      // access, or qinq (whose inner form is the customer frame: the outer tag is popped)
      out.transmit(this.innerForm());
    }
  }

  private innerForm(): Buffer {
    return (this.inner ??= popTag(this.frame!));
  }

  private outerForm(): Buffer {
    return (this.outer ??= pushTag(this.frame!, this.pushTpid, this.vid));
  }
}

/** A hub: every frame goes out of every other port with a NIO. */
export class HubEngine implements Forwarder {
  constructor(private readonly node: ActivePorts) {}

  /** Floods one frame received (and filtered) on `ingress`. */
  forward(ingress: Port, frame: Buffer): void {
    const active = this.node.active;
    for (let i = 0; i < active.length; i++) {
      if (active[i] !== ingress) active[i].transmit(frame);
    }
  }
}
