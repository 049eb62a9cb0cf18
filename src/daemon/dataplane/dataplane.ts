import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { DpNode } from './node.js';
import { UdpNio } from './nio-udp.js';
import { PcapWriter } from './pcap-writer.js';
import type { Port } from './port.js';
import type { Command, CompiledFilters } from './protocol.js';
import { NO_FILTERS } from './filters/spec.js';
import { PCAP_LINK_TYPES, type CaptureInfo, type SwitchPortConfig, type UdpTunnel } from './types.js';

const LINK_TYPES = new Set<number>(Object.values(PCAP_LINK_TYPES));
const SWEEP_MS = 1000;

/** The worker's state: nodes by id, and one method per command, each resolving once the change is in place. */
export class Dataplane {
  private readonly nodes = new Map<string, DpNode>();
  private readonly sweeper = setInterval(() => {
    for (const n of this.nodes.values()) n.sweep();
  }, SWEEP_MS);

  /** Runs one command from the main thread. */
  async handle(cmd: Command): Promise<unknown> {
    switch (cmd.op) {
      case 'createNode': return this.createNode(cmd);
      case 'updatePorts': return this.updatePorts(cmd.nodeId, cmd.ports);
      case 'deleteNode': return this.deleteNode(cmd.nodeId);
      case 'setNodeSuspended': this.node(cmd.nodeId).suspended = cmd.suspended; return;
      case 'addNio': return this.addNio(cmd.nodeId, cmd.port, cmd.tunnel, cmd.filters, cmd.suspend);
      case 'updateNio': return this.updateNio(cmd.nodeId, cmd.port, cmd.filters, cmd.suspend);
      case 'removeNio': return this.removeNio(cmd.nodeId, cmd.port);
      case 'startCapture': return this.startCapture(cmd.nodeId, cmd.port, cmd.path, cmd.linkType);
      case 'stopCapture': return this.stopCapture(cmd.nodeId, cmd.port);
      case 'captureInfo': return this.node(cmd.nodeId).port(cmd.port).captureInfo;
      case 'stats': return this.node(cmd.nodeId).stats();
      case 'macTable': return this.node(cmd.nodeId).macTable();
      case 'close': return this.close();
    }
  }

  private node(id: string): DpNode {
    const n = this.nodes.get(id);
    if (!n) throw new NotFoundError(`no dataplane node ${id}`);
    return n;
  }

  private createNode({ nodeId: id, kind, ports, macAgeingSeconds }: Extract<Command, { op: 'createNode' }>): void {
    if (this.nodes.has(id)) throw new ConflictError(`dataplane node ${id} already exists`);
    if (kind !== 'switch' && kind !== 'hub') throw new InvalidError(`node kind must be switch or hub (got ${kind})`);
    const ageing = macAgeingSeconds ?? 300;
    if (typeof ageing !== 'number' || !(ageing >= 0)) throw new InvalidError(`MAC ageing must be a number of seconds >= 0 (got ${ageing})`);
    this.nodes.set(id, new DpNode(id, kind, ports, ageing));
  }

  private async updatePorts(id: string, configs: SwitchPortConfig[]): Promise<void> {
    const node = this.node(id);
    const removed = node.applyPorts(configs);
    await Promise.all(removed.map((p) => this.teardown(node, p)));
  }

  private async deleteNode(id: string): Promise<void> {
    const node = this.node(id);
    this.nodes.delete(id);
    node.deleted = true;
    await Promise.all([...node.ports.values()].map((p) => this.teardown(node, p)));
  }

  /** Runs `fn` after every earlier NIO/capture change on the port. */
  private exclusive<T>(port: Port, fn: () => Promise<T>): Promise<T> {
    const run = port.lock.then(fn, fn);
    port.lock = run.catch(() => undefined);
    return run;
  }

  private addNio(id: string, n: number, tunnel: UdpTunnel, filters?: CompiledFilters, suspend?: boolean): Promise<void> {
    const node = this.node(id);
    const port = node.port(n);
    return this.exclusive(port, async () => {
      if (node.deleted || node.ports.get(n) !== port) throw new NotFoundError(`node ${id} has no port ${n}`);
      if (port.nio) throw new ConflictError(`port ${n} of node ${id} already has a NIO`);
      port.resetCounters();
      // Filters first: a bad bpf program fails before any socket is bound.
      port.setFilters(filters?.spec ?? NO_FILTERS, filters?.programs ?? []);
      port.suspended = suspend ?? false;
      let nio: UdpNio;
      try {
        nio = await UdpNio.open(tunnel, port.receive, port.counters);
      } catch (e) {
        port.clearFilters();
        throw e;
      }
      if (node.deleted || node.ports.get(n) !== port) {
        await nio.close();
        throw new NotFoundError(`node ${id} or its port ${n} went away while the NIO was opening`);
      }
      node.attach(port, nio);
    });
  }

  private updateNio(id: string, n: number, filters?: CompiledFilters, suspend?: boolean): void {
    const port = this.node(id).port(n);
    if (!port.nio) throw new NotFoundError(`port ${n} of node ${id} has no NIO`);
    if (filters) port.setFilters(filters.spec, filters.programs);
    if (suspend !== undefined) port.suspended = suspend;
  }

  private removeNio(id: string, n: number): Promise<void> {
    const node = this.node(id);
    const port = node.port(n);
    return this.exclusive(port, async () => {
      if (!port.nio) throw new NotFoundError(`port ${n} of node ${id} has no NIO`);
      await this.closePort(node, port);
    });
  }

  private startCapture(id: string, n: number, path: string, linkType: number): Promise<CaptureInfo> {
    if (!LINK_TYPES.has(linkType)) throw new InvalidError(`link type must be one of ${[...LINK_TYPES].join(', ')} (got ${linkType})`);
    if (typeof path !== 'string' || !path) throw new InvalidError('capture path must be a non-empty string');
    const port = this.node(id).port(n);
    return this.exclusive(port, async () => {
      if (!port.nio) throw new ConflictError(`port ${n} of node ${id} has no NIO: nothing to capture`);
      // A restart closes the old writer before the file is truncated: never two writers on one file.
      await this.stopWriter(port);
      let writer: PcapWriter;
      try {
        writer = await PcapWriter.create(path, linkType);
      } catch (e) {
        throw new ConflictError(`cannot write capture file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (!port.nio) {
        await writer.close();
        throw new ConflictError(`port ${n} of node ${id} lost its NIO while the capture was starting`);
      }
      port.capture = writer;
      port.captureInfo = { path, linkType, generation: ++port.generation };
      return port.captureInfo;
    });
  }

  private stopCapture(id: string, n: number): Promise<void> {
    const port = this.node(id).port(n);
    return this.exclusive(port, async () => {
      if (!port.capture) throw new NotFoundError(`port ${n} of node ${id} is not capturing`);
      await this.stopWriter(port);
    });
  }

  private async stopWriter(port: Port): Promise<void> {
    const writer = port.capture;
    if (!writer) return;
    port.capture = null;
    port.captureInfo = null;
    await writer.close();
  }

  /** Closes the port's NIO and capture; the lport is free when this resolves. */
  private async closePort(node: DpNode, port: Port): Promise<void> {
    const nio = node.detach(port);
    await Promise.all([this.stopWriter(port), nio?.close()]);
  }

  private teardown(node: DpNode, port: Port): Promise<void> {
    return this.exclusive(port, () => this.closePort(node, port));
  }

  private async close(): Promise<void> {
    clearInterval(this.sweeper);
    const ids = [...this.nodes.keys()];
    await Promise.all(ids.map((id) => this.deleteNode(id)));
  }
}
