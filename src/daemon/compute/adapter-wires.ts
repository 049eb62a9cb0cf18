import type { NioSpec } from '../dataplane/types.js';
import { NotFoundError } from '../errors.js';
import { failpoint } from '../failpoints.js';
import type { NodeContext } from './node-context.js';
import { nodeOwner, type Owner } from './ownership.js';

/** Port numbers of a wire: the device's side (QEMU's tunnel, a container's TAP, a host interface) and the link's side. */
export const DEVICE_SIDE = 0;
export const LINK_SIDE = 1;

/** The address both ends of a local UDP tunnel between an emulator and its wire use. */
export const TUNNEL_HOST = '127.0.0.1';

/**
 * Creates one 2-port wire (a dataplane hub: emulator or host side, link side) per id; `afterEach`
 * runs after each. When one fails, the wires made are removed.
 */
export async function createWires(ctx: Pick<NodeContext, 'dataplane'>, ids: string[], afterEach: () => void = () => undefined): Promise<void> {
  const made: string[] = [];
  try {
    for (const id of ids) {
      await ctx.dataplane.createNode(id, 'hub', [DEVICE_SIDE, LINK_SIDE].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
      made.push(id);
      afterEach();
    }
  } catch (err) {
    for (const id of made) await ctx.dataplane.deleteNode(id).catch(() => undefined);
    throw err;
  }
}

/** The local UDP tunnel between QEMU and a wire: the port QEMU binds and the one the wire binds. */
export interface Tunnel {
  qemuPort: number;
  wirePort: number;
}

/**
 * One 2-port dataplane wire per adapter of a VM or container. The link's NIO sits on the link side
 * whether the node runs or not; while it runs, the emulator side is a NIO to it (QEMU's `-netdev
 * socket` tunnel, a container's TAP). So captures, filters and NIO changes on the node's port are
 * dataplane operations, as on any node.
 */
export class AdapterWires {
  private count = 0;
  /** The tunnels of the running VM, by adapter. */
  tunnels: Tunnel[] = [];

  constructor(private readonly nodeId: string, private readonly ctx: NodeContext) {}

  /** The dataplane node id of adapter N's wire. */
  id(adapter: number): string {
    return `${this.nodeId}/adapter${adapter}`;
  }

  private get owner(): Owner {
    return nodeOwner(this.ctx.projectId, this.nodeId);
  }

  /** Creates or deletes wires until there is one per adapter; a growth that fails removes the wires it made. */
  async resize(count: number): Promise<void> {
    const added = Array.from({ length: Math.max(0, count - this.count) }, (_, i) => this.id(this.count + i));
    await createWires(this.ctx, added, () => failpoint('qemu.wires.after-create'));
    for (let a = count; a < this.count; a++) await this.ctx.dataplane.deleteNode(this.id(a)).catch(() => undefined);
    this.count = count;
  }

  /** How many adapters (wires) there are. */
  get size(): number {
    return this.count;
  }

  /** The node's port adapter/0 as the dataplane port it is (the adapter), or NotFoundError naming `node`. */
  port(adapter: number, port: number, node: string): number {
    if (port !== 0 || adapter < 0 || adapter >= this.count) throw new NotFoundError(`Port ${adapter}/${port} doesn't exist on ${node} (adapters 0-${this.count - 1}, port 0)`);
    return adapter;
  }

  /** Where the node's adapter meets its link: the link side of its wire. */
  target(adapter: number): { node: string; port: number } {
    return { node: this.id(adapter), port: LINK_SIDE };
  }

  /** The node's ports: one per adapter, port 0, named Ethernet<adapter>. */
  portList(): { adapter: number; port: number; name: string }[] {
    return Array.from({ length: this.count }, (_, a) => ({ adapter: a, port: 0, name: `Ethernet${a}` }));
  }

  /** Connects adapter N's wire to the emulator's end of it. */
  async connect(adapter: number, nio: NioSpec): Promise<void> {
    await this.ctx.dataplane.addNio(this.id(adapter), DEVICE_SIDE, nio);
  }

  /** Disconnects adapter N's wire from the emulator (nothing when it was not connected). */
  async disconnect(adapter: number): Promise<void> {
    await this.ctx.dataplane.removeNio(this.id(adapter), DEVICE_SIDE).catch(() => undefined);
  }

  /** Allocates each adapter's tunnel ports and connects the wires' QEMU side to them (before QEMU starts). */
  async plug(): Promise<Tunnel[]> {
    for (let a = 0; a < this.count; a++) {
      const qemuPort = await this.ctx.resources.udpPorts.allocate(this.owner, { host: TUNNEL_HOST });
      const wirePort = await this.ctx.resources.udpPorts.allocate(this.owner, { host: TUNNEL_HOST }).catch((err) => {
        this.ctx.resources.udpPorts.release(qemuPort, this.owner);
        throw err;
      });
      this.tunnels[a] = { qemuPort, wirePort };
      await this.connect(a, { bindHost: TUNNEL_HOST, lport: wirePort, rhost: TUNNEL_HOST, rport: qemuPort });
    }
    return this.tunnels;
  }

  /** Disconnects the wires from QEMU and frees the tunnel ports (once QEMU has ended). */
  async unplug(): Promise<void> {
    for (const [a, t] of this.tunnels.entries()) {
      if (!t) continue;
      await this.disconnect(a);
      this.ctx.resources.udpPorts.release(t.qemuPort, this.owner);
      this.ctx.resources.udpPorts.release(t.wirePort, this.owner);
    }
    this.tunnels = [];
  }
}
