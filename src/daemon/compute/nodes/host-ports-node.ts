import type { NodeContext, NioJson } from '../node-context.js';
import { DataplaneNode } from './dataplane-node.js';
import { createWires, DEVICE_SIDE, LINK_SIDE } from '../adapter-wires.js';
import type { HostNioSpec, MacTableEntry } from '../../dataplane/types.js';
import { ConflictError, NotFoundError } from '../../errors.js';

/** One port of a cloud (or NAT) node, as GNS3's ports_mapping holds it. */
export interface HostPort {
  name: string;
  port_number: number;
  type: 'tap' | 'ethernet';
  interface: string;
}

/** The host interface's side of a port's wire. */
const HOST_SIDE = DEVICE_SIDE;

/**
 * A node whose ports lead to host interfaces (GNS3's cloud and NAT, ubridge's role): each port is a
 * 2-port dataplane wire with the link's NIO on one side and, while the node runs and the port has a
 * link, a TAP or AF_PACKET NIO on the other. So captures, filters and suspend work as on every node,
 * and nothing is opened on the host for a port without a link (GNS3 attaches on link too).
 */
export abstract class HostPortsNode extends DataplaneNode {
  /** Ports whose host side is open. */
  private readonly attached = new Set<number>();
  /** Whether the node holds its share of the host (while not stopped). */
  private holdsHost = false;
  private readonly stopWatching: () => void;

  protected constructor(id: string, name: string, ctx: NodeContext, public ports: HostPort[]) {
    super(id, name, ctx);
    this.stopWatching = ctx.dataplane.onRestarted?.(() => void this.reattached()) ?? (() => undefined);
  }

  /** Creates one wire per port; a failure removes the wires made. */
  private createWires(ports: HostPort[]): Promise<void> {
    return createWires(this.ctx, ports.map((p) => this.wireId(p.port_number)));
  }

  /** Takes a new port list: wires for new ports, none for removed ones; a port with a link must stay as it is. Call under the node lock. */
  protected async remapHostPorts(ports: HostPort[]): Promise<void> {
    for (const dp of this.nios.keys()) {
      const now = ports.find((p) => p.port_number === dp);
      const was = this.portOf(dp);
      if (!now || now.type !== was.type || now.interface !== was.interface) throw new ConflictError(`Port ${dp} of ${this.name} has a link: remove it before changing the port`);
    }
    const added = ports.filter((p) => !this.ports.some((q) => q.port_number === p.port_number));
    const removed = this.ports.filter((p) => !ports.some((q) => q.port_number === p.port_number));
    await this.createWires(added);
    for (const p of removed) await this.ctx.dataplane.deleteNode(this.wireId(p.port_number)).catch(() => undefined);
    this.ports = ports;
  }

  private wireId(port: number): string {
    return `${this.id}/port${port}`;
  }

  /** What the host side of `port` opens (a NAT node names its own TAP; `existing` when it is open already). */
  protected hostNio(port: HostPort, _opts: { existing?: boolean } = {}): HostNioSpec {
    return { kind: port.type, ifname: port.interface };
  }

  /** Runs once the host side of a port is open (a NAT node joins its TAP to the bridge), and again after a dataplane restart made its TAP anew. */
  protected async afterAttach(_port: HostPort, _nio: HostNioSpec): Promise<void> {}

  /** A restarted dataplane worker opened the host sides again: their TAPs are new interfaces. */
  private async reattached(): Promise<void> {
    await this.lock.run(async () => {
      for (const n of this.attached) {
        const port = this.portOf(n);
        await this.afterAttach(port, this.hostNio(port, { existing: true })).catch((err: Error) => this.ctx.log.error(`${this.name} port ${port.name} after the dataplane restart: ${err.message}`));
      }
    });
  }

  /** Takes what the node shares with others on the host while it runs (the NAT bridge). */
  protected async acquireHost(): Promise<void> {}

  protected async releaseHost(): Promise<void> {}

  /** Creates the wires and takes the host share: a node is created started. Nothing is left when it fails. */
  protected async setUp(): Promise<void> {
    await this.createWires(this.ports).catch((err) => {
      this.stopWatching();
      throw err;
    });
    try {
      await this.acquireHost();
      this.holdsHost = true;
    } catch (err) {
      this.stopWatching();
      for (const p of this.ports) await this.ctx.dataplane.deleteNode(this.wireId(p.port_number)).catch(() => undefined);
      throw err;
    }
  }

  protected dataplanePort(adapter: number, port: number): number {
    if (adapter !== 0) throw new NotFoundError(`Adapter ${adapter} doesn't exist on ${this.name} (only adapter 0)`);
    if (!this.ports.some((p) => p.port_number === port)) throw new NotFoundError(`Port ${port} doesn't exist on ${this.name}`);
    return port;
  }

  protected override dataplaneTarget(dp: number): { node: string; port: number } {
    return { node: this.wireId(dp), port: LINK_SIDE };
  }

  protected portList() {
    return this.ports.map((p) => ({ adapter: 0, port: p.port_number, name: p.name }));
  }

  override async addNio(adapter: number, port: number, nio: NioJson): Promise<NioJson> {
    const stored = await super.addNio(adapter, port, nio);
    try {
      await this.lock.run(() => (this.status === 'stopped' ? Promise.resolve() : this.attach(this.portOf(port))));
    } catch (err) {
      await super.removeNio(adapter, port).catch(() => undefined);
      throw err;
    }
    return stored;
  }

  override async removeNio(adapter: number, port: number): Promise<void> {
    await super.removeNio(adapter, port);
    await this.lock.run(() => this.detach(port));
  }

  override macTable(): Promise<MacTableEntry[]> {
    return Promise.resolve([]);
  }

  /** Opens the host side of every linked port. */
  override start(): Promise<void> {
    return this.lock.run(async () => {
      if (this.status !== 'stopped') return this.setWiresSuspended(false);
      await this.acquireHost();
      this.holdsHost = true;
      try {
        for (const dp of this.nios.keys()) await this.attach(this.portOf(dp));
      } catch (err) {
        await this.letGo();
        throw err;
      }
      this.status = 'started';
    });
  }

  /** Closes the host side of every port (a TAP emuctl made goes with it). */
  override stop(): Promise<void> {
    return this.lock.run(async () => {
      await this.letGo();
      await this.setWiresSuspended(false);
      this.status = 'stopped';
    });
  }

  override suspend(): Promise<void> {
    return this.lock.run(async () => {
      await this.setWiresSuspended(true);
      if (this.status === 'started') this.status = 'suspended';
    });
  }

  override async destroy(): Promise<void> {
    this.stopWatching();
    await this.lock.run(async () => {
      await this.letGo();
      this.nios.clear();
      for (const p of this.ports) await this.ctx.dataplane.deleteNode(this.wireId(p.port_number)).catch(() => undefined);
    });
  }

  private async setWiresSuspended(suspended: boolean): Promise<void> {
    for (const p of this.ports) await this.ctx.dataplane.setNodeSuspended(this.wireId(p.port_number), suspended);
    if (!suspended && this.status === 'suspended') this.status = 'started';
  }

  private portOf(port: number): HostPort {
    return this.ports.find((p) => p.port_number === port)!;
  }

  private async attach(port: HostPort): Promise<void> {
    if (this.attached.has(port.port_number)) return;
    const nio = this.hostNio(port);
    await this.ctx.dataplane.addNio(this.wireId(port.port_number), HOST_SIDE, nio);
    try {
      await this.afterAttach(port, nio);
    } catch (err) {
      await this.ctx.dataplane.removeNio(this.wireId(port.port_number), HOST_SIDE).catch(() => undefined);
      throw err;
    }
    this.attached.add(port.port_number);
  }

  private async detach(port: number): Promise<void> {
    if (!this.attached.delete(port)) return;
    await this.ctx.dataplane.removeNio(this.wireId(port), HOST_SIDE).catch(() => undefined);
  }

  /** Closes every port's host side and gives back the host share. */
  private async letGo(): Promise<void> {
    for (const port of [...this.attached]) await this.detach(port);
    if (!this.holdsHost) return;
    this.holdsHost = false;
    await this.releaseHost();
  }
}
