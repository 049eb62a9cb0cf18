import { performance } from 'node:perf_hooks';
import { NotFoundError } from '../errors.js';
import { Port, type Nio, type PortOwner } from './port.js';
import { HubEngine, SwitchEngine } from './switch-engine.js';
import type { DataplaneNodeKind, MacTableEntry, PortCounters } from './types.js';
import type { VlanSettings } from './vlan.js';

/** A switch or hub in the worker: its ports, the ones with a live NIO, and its forwarding engine. */
export class DpNode implements PortOwner {
  suspended = false;
  readonly ports = new Map<number, Port>();
  /** Ports with a live NIO, in port order: what flooding iterates. */
  active: Port[] = [];
  readonly engine: SwitchEngine | HubEngine;
  deleted = false;

  constructor(readonly id: string, readonly kind: DataplaneNodeKind, ports: ReadonlyMap<number, VlanSettings>, ageingSeconds: number) {
    this.engine = kind === 'switch' ? new SwitchEngine(this, ageingSeconds) : new HubEngine(this);
    for (const [n, settings] of ports) this.ports.set(n, new Port(n, settings, this));
  }

  /** The port numbered `n`; NotFoundError if the node has none. */
  port(n: number): Port {
    const p = this.ports.get(n);
    if (!p) throw new NotFoundError(`node ${this.id} has no port ${n}`);
    return p;
  }

  /**
   * Replaces the port list: kept ports take their new VLAN settings live, new
   * ports appear, and the ports that disappear go (the caller has closed their
   * NIOs). The MAC table is flushed, since VLAN membership may have changed.
   */
  applyPorts(parsed: ReadonlyMap<number, VlanSettings>): void {
    for (const n of this.ports.keys()) if (!parsed.has(n)) this.ports.delete(n);
    for (const [n, settings] of parsed) {
      const p = this.ports.get(n);
      if (p) p.configure(settings);
      else this.ports.set(n, new Port(n, settings, this));
    }
    if (this.engine instanceof SwitchEngine) this.engine.macs.flushAll();
  }

  /** Puts a freshly opened NIO on the port, which starts forwarding. */
  attach(port: Port, nio: Nio): void {
    port.nio = nio;
    this.active = [...this.ports.values()].filter((p) => p.nio !== null).sort((a, b) => a.number - b.number);
  }

  /** Takes the NIO off the port (the caller closes it): no more frames in or out, its MAC entries and filters go. */
  detach(port: Port): Nio | null {
    const nio = port.nio;
    port.nio = null;
    port.clearFilters();
    this.active = this.active.filter((p) => p !== port);
    if (this.engine instanceof SwitchEngine) this.engine.macs.flushPort(port);
    return nio;
  }

  /** Drops aged MAC entries. */
  sweep(): void {
    if (this.engine instanceof SwitchEngine) this.engine.macs.sweep(performance.now());
  }

  stats(): PortCounters[] {
    return [...this.ports.values()].sort((a, b) => a.number - b.number).map((p) => ({ ...p.counters }));
  }

  macTable(): MacTableEntry[] {
    return this.engine instanceof SwitchEngine ? this.engine.entries() : [];
  }
}
