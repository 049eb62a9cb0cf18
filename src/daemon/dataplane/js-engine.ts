import type { FileHandle } from 'node:fs/promises';
import { NotFoundError } from '../errors.js';
import type { Engine } from './engine.js';
import { DpNode } from './node.js';
import { UdpNio } from './nio-udp.js';
import { HostNio } from './nio-host.js';
import { PcapWriter } from './pcap-writer.js';
import type { Port } from './port.js';
import type { CompiledFilters } from './protocol.js';
import { NO_FILTERS } from './filters/spec.js';
import type { ResolvedTunnel } from './tunnel.js';
import { TunnelPorts } from './tunnel-guard.js';
import type { DataplaneNodeKind, HostNioSpec, MacTableEntry, PortCounters } from './types.js';
import type { VlanSettings } from './vlan.js';

const SWEEP_MS = 1000;

/** The TypeScript engine: node:dgram sockets (host interfaces through the addon's helper, nio-host.ts) and the frame path of port.ts, in the worker's event loop. The reference for the native one. */
export class JsEngine implements Engine {
  readonly name = 'js';
  private readonly nodes = new Map<string, DpNode>();
  /** The lports of the tunnels open: a host NIO's frames to or from one are dropped (tunnel-guard.ts). */
  private readonly tunnels = new TunnelPorts();
  private readonly sweeper = setInterval(() => {
    for (const n of this.nodes.values()) n.sweep();
  }, SWEEP_MS);

  addNode(id: string, kind: DataplaneNodeKind, ports: ReadonlyMap<number, VlanSettings>, ageingSeconds: number): void {
    this.nodes.set(id, new DpNode(id, kind, ports, ageingSeconds));
  }

  setPorts(id: string, ports: ReadonlyMap<number, VlanSettings>): void {
    this.node(id).applyPorts(ports);
  }

  removeNode(id: string): void {
    this.nodes.delete(id);
  }

  setNodeSuspended(id: string, suspended: boolean): void {
    this.node(id).suspended = suspended;
  }

  async openNio(id: string, port: number, tunnel: ResolvedTunnel): Promise<void> {
    const node = this.node(id);
    const p = node.port(port);
    const nio = await UdpNio.open(tunnel, p.receive, p.counters);
    this.tunnels.add(nio.lport);
    node.attach(p, nio);
  }

  async openHostNio(id: string, port: number, nio: HostNioSpec): Promise<void> {
    const node = this.node(id);
    const p = node.port(port);
    const c = p.counters;
    const receive = (frame: Buffer): void => {
      if (!this.tunnels.carries(frame)) return p.receive(frame);
      c.framesIn++;
      c.bytesIn += frame.length;
      c.drops++;
    };
    node.attach(p, HostNio.open(nio, receive, c));
  }

  async closeNio(id: string, port: number): Promise<void> {
    const node = this.node(id);
    const nio = node.detach(node.port(port));
    if (nio instanceof UdpNio) this.tunnels.remove(nio.lport);
    await nio?.close();
  }

  setFilters(id: string, port: number, filters: CompiledFilters | null): void {
    this.port(id, port).setFilters(filters?.spec ?? NO_FILTERS, filters?.programs ?? []);
  }

  setPortSuspended(id: string, port: number, suspended: boolean): void {
    this.port(id, port).suspended = suspended;
  }

  resetCounters(id: string, port: number): void {
    this.port(id, port).resetCounters();
  }

  async openCapture(id: string, port: number, file: FileHandle, linkType: number, failed: (code: string) => void): Promise<void> {
    const writer = await PcapWriter.create(file, linkType, (err) => failed(err.code ?? 'EIO'));
    const p = this.nodes.get(id)?.ports.get(port);
    if (!p) {
      await writer.close();
      throw new NotFoundError(`node ${id} has no port ${port}`);
    }
    const old = p.capture;
    p.capture = writer;
    await old?.close();
  }

  async closeCapture(id: string, port: number): Promise<void> {
    const p = this.port(id, port);
    const writer = p.capture;
    p.capture = null;
    await writer?.close();
  }

  stats(id: string): PortCounters[] {
    return this.node(id).stats();
  }

  macTable(id: string): MacTableEntry[] {
    return this.node(id).macTable();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private node(id: string): DpNode {
    const n = this.nodes.get(id);
    if (!n) throw new NotFoundError(`no dataplane node ${id}`);
    return n;
  }

  private port(id: string, port: number): Port {
    return this.node(id).port(port);
  }
}
