import { randomUUID } from 'node:crypto';
import type { CaptureInfo, MacTableEntry, PortCounters, SwitchPortConfig } from '../../dataplane/types.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { AsyncLock } from '../../../util/async-lock.js';
import type { NioSpec } from '../../dataplane/types.js';
import { nodeOwner, type Owner } from '../ownership.js';
import type { NioChange, NioJson, NodeContext, NodeStatus } from '../node-context.js';

/** Per-port view for `stats`: the NIO, the capture and the counters. */
export interface PortStats extends Partial<PortCounters> {
  adapter_number: number;
  port_number: number;
  name: string;
  nio: NioJson | null;
  capturing: boolean;
  capture_file_path: string | null;
}

/**
 * A compute node whose ports are dataplane ports: NIO add/update/remove and
 * captures, serialised per node. Subclasses say which (adapter, port) pairs
 * exist and which dataplane port each maps to.
 */
export abstract class DataplaneNode {
  abstract readonly nodeType: string;
  readonly lock = new AsyncLock();
  readonly nios = new Map<number, NioJson>();
  private currentStatus: NodeStatus;

  constructor(readonly id: string, public name: string, protected readonly ctx: NodeContext, initialStatus: NodeStatus = 'started') {
    this.currentStatus = initialStatus;
  }

  get status(): NodeStatus {
    return this.currentStatus;
  }

  /** Every status change is published as GNS3's `node.updated` on the compute stream, whatever the node type. */
  set status(status: NodeStatus) {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    this.ctx.events.nodeUpdated(this, this.ctx.projectId);
  }

  /** The holder of everything this node takes from the compute. */
  get owner(): Owner {
    return nodeOwner(this.ctx.projectId, this.id);
  }

  /** Takes console port `port` for this node, then gives back `previous` (GNS3 lets a stopped node's console move). */
  protected async moveConsolePort(previous: number | null, port: number): Promise<number> {
    const taken = await this.ctx.resources.consolePorts.allocate(this.owner, port);
    if (previous !== null) this.ctx.resources.consolePorts.release(previous, this.owner);
    return taken;
  }

  /** Dataplane node id (a VPCS's wire is not the node itself). */
  protected get dataplaneId(): string {
    return this.id;
  }

  /** The dataplane port for (adapter, port); NotFoundError when the node has no such port. */
  protected abstract dataplanePort(adapter: number, port: number): number;

  /** Where the port keyed `dp` lives in the dataplane (a QEMU adapter is the link side of its own wire). */
  protected dataplaneTarget(dp: number): { node: string; port: number } {
    return { node: this.dataplaneId, port: dp };
  }
  /** Port names and numbers, for stats. */
  protected abstract portList(): { adapter: number; port: number; name: string }[];
  abstract toJSON(): Record<string, unknown>;

  /** The fields every node's JSON starts with, as GNS3 computes answer. */
  protected identityJSON(): { node_id: string; project_id: string; name: string; status: NodeStatus } {
    return { node_id: this.id, project_id: this.ctx.projectId, name: this.name, status: this.status };
  }

  /** Adds a NIO (nio_udp binds, nio_tap and nio_ethernet open the host interface; nio_null only drops). */
  addNio(adapter: number, port: number, nio: NioJson): Promise<NioJson> {
    return this.lock.run(async () => {
      const dp = this.dataplanePort(adapter, port);
      if (this.nios.has(dp)) throw new ConflictError(`Port ${port} of ${this.name} already has a NIO`);
      const spec = this.dataplaneNio(nio);
      if (spec) {
        const t = this.dataplaneTarget(dp);
        if (nio.type === 'nio_udp') this.ctx.resources.udpPorts.reserve(nio.lport, this.owner);
        try {
          await this.ctx.dataplane.addNio(t.node, t.port, spec, { filters: nio.filters ?? {}, suspend: nio.suspend ?? false });
        } catch (err) {
          if (nio.type === 'nio_udp') this.ctx.resources.udpPorts.release(nio.lport, this.owner);
          throw err;
        }
      }
      const stored = { ...nio, filters: nio.filters ?? {}, suspend: nio.suspend ?? false } as NioJson;
      this.nios.set(dp, stored);
      return stored;
    });
  }

  /** Changes a NIO's filters and suspend flag. */
  updateNio(adapter: number, port: number, change: NioChange): Promise<NioJson> {
    return this.lock.run(async () => {
      const dp = this.dataplanePort(adapter, port);
      const nio = this.nioOn(dp, port);
      const t = this.dataplaneTarget(dp);
      if (nio.type !== 'nio_null') await this.ctx.dataplane.updateNio(t.node, t.port, { filters: change.filters, suspend: change.suspend });
      const updated = { ...nio, ...(change.filters ? { filters: change.filters } : {}), ...(change.suspend !== undefined ? { suspend: change.suspend } : {}) } as NioJson;
      this.nios.set(dp, updated);
      return updated;
    });
  }

  /** Removes a NIO: its socket closes and its UDP port is free again. */
  removeNio(adapter: number, port: number): Promise<void> {
    return this.lock.run(async () => {
      const dp = this.dataplanePort(adapter, port);
      const nio = this.nioOn(dp, port);
      if (nio.type !== 'nio_null') {
        const t = this.dataplaneTarget(dp);
        await this.ctx.dataplane.removeNio(t.node, t.port);
        if (nio.type === 'nio_udp') this.ctx.resources.udpPorts.release(nio.lport, this.owner);
      }
      this.nios.delete(dp);
    });
  }

  /** Starts (or restarts) a capture of the port's frames into `path`, reached from `root` with no link followed. */
  startCapture(adapter: number, port: number, path: string, linkType: number, root?: string): Promise<CaptureInfo> {
    return this.lock.run(async () => {
      const dp = this.dataplanePort(adapter, port);
      const nio = this.nioOn(dp, port);
      if (nio.type === 'nio_null') throw new ConflictError(`Port ${port} of ${this.name} has a null NIO: nothing to capture`);
      const t = this.dataplaneTarget(dp);
      return this.ctx.dataplane.startCapture(t.node, t.port, path, linkType, root);
    });
  }

  stopCapture(adapter: number, port: number): Promise<void> {
    return this.lock.run(async () => {
      const t = this.dataplaneTarget(this.dataplanePort(adapter, port));
      await this.ctx.dataplane.stopCapture(t.node, t.port).catch((err) => {
        throw err instanceof NotFoundError ? new ConflictError(`Port ${port} of ${this.name} is not capturing`) : err;
      });
    });
  }

  /** The port's current capture, or null. */
  captureInfo(adapter: number, port: number): Promise<CaptureInfo | null> {
    const t = this.dataplaneTarget(this.dataplanePort(adapter, port));
    return this.ctx.dataplane.captureInfo(t.node, t.port);
  }

  /** Per-port NIO, capture state and counters. */
  async stats(): Promise<PortStats[]> {
    const byNode = new Map<string, Promise<PortCounters[]>>();
    const countersOf = (node: string) => {
      if (!byNode.has(node)) byNode.set(node, this.ctx.dataplane.stats(node));
      return byNode.get(node)!;
    };
    return Promise.all(
      this.portList().map(async ({ adapter, port, name }) => {
        const dp = this.dataplanePort(adapter, port);
        const t = this.dataplaneTarget(dp);
        const capture = this.nios.get(dp) && this.nios.get(dp)?.type !== 'nio_null' ? await this.ctx.dataplane.captureInfo(t.node, t.port) : null;
        const { port: _p, ...c } = (await countersOf(t.node)).find((x) => x.port === t.port) ?? ({} as PortCounters);
        return { adapter_number: adapter, port_number: port, name, nio: this.nios.get(dp) ?? null, capturing: !!capture, capture_file_path: capture?.path ?? null, ...c };
      }),
    );
  }

  macTable(): Promise<MacTableEntry[]> {
    return this.ctx.dataplane.macTable(this.dataplaneId);
  }

  async start(): Promise<void> {
    await this.setStatus('started');
  }

  async stop(): Promise<void> {
    await this.setStatus('stopped');
  }

  async suspend(): Promise<void> {
    await this.setStatus('suspended');
  }

  async reload(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Applies a new port list to the dataplane; a port that has a NIO cannot disappear. Call under the node lock. */
  protected async remapPorts(ports: SwitchPortConfig[]): Promise<void> {
    for (const dp of this.nios.keys()) {
      if (!ports.some((p) => p.port === dp)) throw new ConflictError(`Port ${dp} of ${this.name} has a NIO: remove it before removing the port`);
    }
    await this.ctx.dataplane.updatePorts(this.dataplaneId, ports);
  }

  protected async setStatus(status: NodeStatus): Promise<void> {
    await this.lock.run(async () => {
      await this.ctx.dataplane.setNodeSuspended(this.dataplaneId, status !== 'started');
      this.status = status;
    });
  }

  /** Stops what the node runs: NIOs, captures, the dataplane node. Its allocations are the compute's to release. */
  async destroy(): Promise<void> {
    await this.lock.run(async () => {
      this.nios.clear();
      await this.ctx.dataplane.deleteNode(this.dataplaneId);
    });
  }

  /** What the dataplane opens for a NIO: a UDP tunnel, a host TAP or interface; nothing for nio_null (it only drops). */
  private dataplaneNio(nio: NioJson): NioSpec | undefined {
    switch (nio.type) {
      case 'nio_udp': return { bindHost: this.ctx.bindHost, lport: nio.lport, rhost: nio.rhost, rport: nio.rport };
      case 'nio_tap': return { kind: 'tap', ifname: this.ctx.hostInterfaces.check(nio.tap_device, 'tap_device') };
      case 'nio_ethernet': return { kind: 'ethernet', ifname: this.ctx.hostInterfaces.check(nio.ethernet_device, 'ethernet_device') };
      case 'nio_null': return undefined;
    }
  }

  private nioOn(dp: number, port: number): NioJson {
    const nio = this.nios.get(dp);
    if (!nio) throw new NotFoundError(`Port ${port} of ${this.name} has no NIO`);
    return nio;
  }
}

/** A node id given by the client or a new one. */
export function nodeIdOr(given?: string): string {
  return given ?? randomUUID();
}
