import { join } from 'node:path';
import type { Logger } from '../../logger.js';
import { describeChange, undoDeadJournals } from '../host-changes.js';
import { missingHostAccess } from '../host-access.js';
import { ConflictError, InvalidError } from '../../errors.js';
import { addressValue, cidrContains, cidrsOverlap, cidrText, parseCidr, type Family } from '../../../util/ip-cidr.js';
import { hostRoutes } from '../../../util/host-routes.js';
import type { ProcessRegistry } from '../process/process-registry.js';
import { ManagementDhcp } from './dhcp-server.js';
import { ipForwardingStillNeeded } from '../ip-forwarding.js';
import { ManagementBridge, mgmtBridgeName, MGMT_JOURNAL, shortId } from './management-bridge.js';
import { ProjectManagement } from './project-management.js';
import type { ManagementAccess, ManagementNetwork } from './types.js';

/** The host tools a management network runs, with the Debian package of each. */
export const MGMT_TOOLS = { ip: 'iproute2', iptables: 'iptables', ip6tables: 'iptables', nsenter: 'util-linux' };

/** The management networks of this compute's projects, one bridge each, made when the controller sets one. */
export class ComputeManagement {
  private readonly bridges = new Map<string, ProjectManagement>();

  /**
   * `registry` records the DHCP servers, so that the next start ends those a killed daemon left;
   * `allowNat` is the compute's `mgmt_nat` setting (false: a network that asks for a route out is refused).
   */
  constructor(private readonly o: { runDir: string; log: Logger; env: NodeJS.ProcessEnv; registry?: ProcessRegistry; allowNat: boolean }) {}

  /** Sets the project's network (null: none). The same network again changes nothing; another one replaces it. */
  async set(projectId: string, asked: ManagementNetwork | null): Promise<void> {
    // Absent and false are the same: no route out.
    const network = asked && { ...asked, nat: asked.nat === true };
    if (network?.nat && !this.o.allowNat) throw new ConflictError('this compute does not let a management network route out (its mgmt_nat setting is false): remove nat from the lab\'s mgmt:');
    const current = this.bridges.get(projectId);
    if (current && network && JSON.stringify(current.network) === JSON.stringify(network)) return;
    if (current) {
      this.bridges.delete(projectId);
      await current.down();
    }
    if (!network) return;
    const missing = missingHostAccess('a management network', this.o.env, MGMT_TOOLS);
    if (missing) throw new ConflictError(missing);
    await this.checkFree(projectId, network);
    const bridge = new ManagementBridge(projectId, network, this.o.runDir, this.o.log);
    const dhcp = new ManagementDhcp({ bridge: bridge.bridge, subnet: network.ipv4.subnet, router: network.nat ? network.ipv4.gateway : undefined, dir: join(this.o.runDir, `mgmt-dhcp.${shortId(projectId)}`), env: this.o.env, log: this.o.log, registry: this.o.registry });
    const project = new ProjectManagement(bridge, dhcp);
    await project.up();
    this.bridges.set(projectId, project);
  }

  /** Each subnet is one, its gateway inside it, and no host route (but this project's own bridge) overlaps it: 400 or 409. */
  private async checkFree(projectId: string, network: ManagementNetwork): Promise<void> {
    const routes = await hostRoutes();
    for (const [family, side] of [[4, network.ipv4], [6, network.ipv6]] as [Family, ManagementNetwork['ipv4'] | null][]) {
      if (!side) continue;
      const subnet = parseCidr(side.subnet, family);
      if (typeof subnet === 'string') throw new InvalidError(`management ipv${family} subnet: ${subnet}`);
      const gateway = addressValue(side.gateway, family);
      if (gateway === undefined || !cidrContains(subnet, gateway)) throw new InvalidError(`management ipv${family} gateway '${side.gateway}' is not an address of ${side.subnet}`);
      const clash = routes.find((r) => r.dev !== mgmtBridgeName(projectId) && cidrsOverlap(r.destination, subnet));
      if (clash) throw new ConflictError(`the management subnet ${side.subnet} overlaps the host route ${cidrText(clash.destination)} (dev ${clash.dev}): choose another one, or auto`);
    }
  }

  /** The project's network, for its nodes; undefined when it has none. */
  access(projectId: string): ManagementAccess | undefined {
    return this.bridges.get(projectId);
  }

  /** The project's network as set, or null. */
  network(projectId: string): ManagementNetwork | null {
    return this.bridges.get(projectId)?.network ?? null;
  }

  /** Removes what dead daemons' management networks left on the host (their journals in the run dir). */
  async cleanupLeftovers(): Promise<void> {
    const { undone, failures } = await undoDeadJournals(this.o.runDir, ipForwardingStillNeeded, MGMT_JOURNAL);
    if (undone.length) this.o.log.info(`removed what a previous run's management networks left on the host: ${undone.map(describeChange).join(', ')}`);
    for (const f of failures) this.o.log.error(`could not remove what a previous run's management network left: ${f}`);
  }

  /** Takes every network down (the daemon stops). */
  async closeAll(): Promise<void> {
    for (const id of [...this.bridges.keys()]) await this.set(id, null).catch((err: Error) => this.o.log.error(`management network of ${id}: ${err.message}`));
  }
}
