import { readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../atomic-write.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AsyncLock } from '../../../util/async-lock.js';
import { hostRoutes } from '../../../util/host-routes.js';
import { parseCidr, type Cidr, type Family } from '../../../util/ip-cidr.js';
import type { ComputeRegistry } from '../computes.js';
import type { Lab } from '../lab.js';
import type { ControllerNode } from '../node.js';
import type { Project } from '../project.js';
import type { ProjectLifecycle } from '../projects.js';
import { addressOf, chooseSubnet, managementSubnet, networkJSON, nextAddress, pinnedAddress, withPrefix, type ManagementNetwork } from './addressing.js';

/** The file beside a project's topology that keeps its management network (re-read when the daemon restarts). */
export const MANAGEMENT_FILE = 'management.json';
/** The node types that get a management interface. */
export const MANAGED_TYPES = ['docker', 'qemu'];
/** The node properties that hold a node's management addresses (with prefix length). */
export const MGMT_PROPERTY: Record<Family, string> = { 4: 'mgmt_ipv4', 6: 'mgmt_ipv6' };

/** `PUT .../management`'s body. */
export interface ManagementRequest {
  ipv4?: string;
  ipv6?: string | false;
  interface?: string;
  nat?: boolean;
}

interface Stored {
  v4: Cidr;
  v6: Cidr | null;
  iface: string;
  nat: boolean;
}

/**
 * The controller's management networks, one per project at most: the subnets (`auto` picks a free
 * one from the configured ranges), the addresses of the nodes (in creation order, unless pinned),
 * and the compute side of each network (set on every compute that runs one of its nodes).
 */
export class ManagementNetworks implements ProjectLifecycle {
  private readonly nets = new Map<string, Stored | null>();
  /** One subnet chosen at a time across projects: each choice avoids those recorded before it. */
  private readonly choosing = new AsyncLock();

  constructor(private readonly deps: { range4: string; range6: string; computes: ComputeRegistry; log: Logger; projects: () => Project[] }) {}

  /** The project's network, or NotFoundError. */
  get(project: Project): ManagementNetwork {
    const net = this.stored(project);
    if (!net) throw new NotFoundError(`Project ${project.name} has no management network`);
    return networkJSON(net.v4, net.v6, net.iface, net.nat);
  }

  /** Whether the project has one. */
  has(project: Project): boolean {
    return this.stored(project) !== null;
  }

  /**
   * Sets the project's network. Asking again for what it has (`auto` matches any subnet) changes
   * nothing; another subnet or name while nodes hold addresses is a 409.
   */
  async put(lab: Lab, body: ManagementRequest): Promise<ManagementNetwork> {
    const project = lab.project;
    const current = this.stored(project);
    const iface = body.interface ?? current?.iface ?? 'mgmt0';
    const wants4 = body.ipv4 ?? 'auto';
    const wants6 = body.ipv6 ?? 'auto';
    const nat = body.nat ?? false;
    if (current && this.matches(current, wants4, wants6, iface) && current.nat === nat) return this.get(project);
    if (current && [...lab.nodes.values()].some((n) => n.properties.mgmt_ipv4)) {
      throw new ConflictError(`Project ${project.name} has nodes on its management network ${this.get(project).ipv4.subnet}: delete them before changing it`);
    }
    await this.choosing.run(async () => {
      const avoid = [...(await hostRoutes()).map((r) => r.destination), ...this.others(project)];
      const v4 = this.subnet(4, wants4, project.name, avoid, this.deps.range4);
      const v6 = wants6 === false ? null : this.subnet(6, wants6, project.name, avoid, this.deps.range6);
      await writeFileAtomic(join(project.path, MANAGEMENT_FILE), JSON.stringify(networkJSON(v4, v6, iface, nat)));
      this.nets.set(project.id, { v4, v6, iface, nat });
    });
    // Computes that already run the project get the new network now; others when a node is placed there.
    for (const computeId of lab.computesReady) await this.deps.computes.api(computeId).setManagement(project.id, this.get(project));
    return this.get(project);
  }

  /** Removes the project's network (its nodes keep running without it until they restart). */
  async delete(lab: Lab): Promise<void> {
    const project = lab.project;
    this.get(project);
    for (const computeId of lab.computesReady) {
      await this.deps.computes.api(computeId).setManagement(project.id, null).catch((err: Error) => this.deps.log.warn(`management network of ${project.name} on ${computeId}: ${err.message}`));
    }
    await unlink(join(project.path, MANAGEMENT_FILE)).catch(() => undefined);
    this.nets.set(project.id, null);
    for (const node of lab.nodes.values()) {
      if (node.properties.mgmt_ipv4 !== undefined) node.properties.mgmt_ipv4 = null;
      if (node.properties.mgmt_ipv6 !== undefined) node.properties.mgmt_ipv6 = null;
    }
  }

  /**
   * Gives a new node its addresses (in the properties it is created with): pinned ones are checked,
   * others are the lowest free. Called under the lab's lock, so concurrent creates never share one.
   * A node of a project without a network, or of another type, gets none.
   */
  assign(lab: Lab, node: ControllerNode): void {
    const net = this.stored(lab.project);
    if (!MANAGED_TYPES.includes(node.nodeType)) return;
    if (!net) {
      for (const family of [4, 6] as const) if (node.properties[MGMT_PROPERTY[family]]) throw new ConflictError(`Project ${lab.project.name} has no management network: ${MGMT_PROPERTY[family]} cannot be set`);
      return;
    }
    for (const [family, subnet] of [[4, net.v4], [6, net.v6]] as [Family, Cidr | null][]) {
      const key = MGMT_PROPERTY[family];
      if (!subnet) {
        if (node.properties[key]) throw new ConflictError(`the management network of ${lab.project.name} has no IPv6: ${key} cannot be set`);
        node.properties[key] = null;
        continue;
      }
      const used = new Set<bigint>();
      for (const other of lab.otherNodeProperties(node)) {
        const a = addressOf(other[key], family);
        if (a !== undefined) used.add(a);
      }
      const pinned = node.properties[key];
      const address = typeof pinned === 'string' && pinned ? pinnedAddress(pinned, subnet, used, key) : nextAddress(subnet, used);
      node.properties[key] = withPrefix(address, subnet);
    }
  }

  /** Before a node with a management address is created on its compute: the compute has the project's network. */
  async ready(lab: Lab, node: ControllerNode): Promise<void> {
    if (!node.properties.mgmt_ipv4 || !this.stored(lab.project)) return;
    await node.compute.setManagement(lab.project.id, this.get(lab.project));
  }

  async deleting(project: Project): Promise<void> {
    this.nets.delete(project.id);
  }

  /** The project's network, read from its file the first time. */
  private stored(project: Project): Stored | null {
    if (!this.nets.has(project.id)) this.nets.set(project.id, readStored(project.path));
    return this.nets.get(project.id) ?? null;
  }

  /** Every other project's subnets: `auto` avoids them, running or not. */
  private others(project: Project): Cidr[] {
    return this.deps.projects().filter((p) => p.id !== project.id).flatMap((p) => {
      const net = this.stored(p);
      return net ? [net.v4, ...(net.v6 ? [net.v6] : [])] : [];
    });
  }

  private matches(current: Stored, v4: string, v6: string | false, iface: string): boolean {
    const same = (c: Cidr | null, wanted: string | false, family: Family) =>
      wanted === false ? c === null : c !== null && (wanted === 'auto' || JSON.stringify(managementSubnet(wanted, family, `ipv${family}`)) === JSON.stringify(c));
    return same(current.v4, v4, 4) && same(current.v6, v6, 6) && current.iface === iface;
  }

  private subnet(family: Family, wanted: string, seed: string, avoid: Cidr[], range: string): Cidr {
    if (wanted !== 'auto') return managementSubnet(wanted, family, `ipv${family}`);
    const found = chooseSubnet(managementSubnet(range, family, family === 4 ? 'mgmt_range' : 'mgmt_range_ipv6'), seed, avoid);
    if (!found) throw new ConflictError(`no free IPv${family} management subnet is left in ${range} (set ${family === 4 ? 'mgmt_range' : 'mgmt_range_ipv6'} to a larger range)`);
    return found;
  }
}

/** A project's stored network, or null (none, or a file that cannot be read: logged by nobody, the project simply has none). */
function readStored(path: string): Stored | null {
  try {
    const json = JSON.parse(readFileSync(join(path, MANAGEMENT_FILE), 'utf8')) as ManagementNetwork;
    const v4 = parseCidr(json.ipv4.subnet, 4);
    const v6 = json.ipv6 ? parseCidr(json.ipv6.subnet, 6) : null;
    if (typeof v4 === 'string' || typeof v6 === 'string') return null;
    return { v4, v6, iface: json.interface, nat: json.nat === true };
  } catch {
    return null;
  }
}
