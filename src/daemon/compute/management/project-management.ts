import { ConflictError } from '../../errors.js';
import { addressText, addressValue, cidrContains, cidrSize, parseCidr, type Family } from '../../../util/ip-cidr.js';
import type { ManagementDhcp } from './dhcp-server.js';
import type { ManagementBridge } from './management-bridge.js';
import { makeManagementTap, removeManagementTap } from './management-tap.js';
import type { ManagementAccess, ManagementNetwork } from './types.js';

/**
 * One project's management network as its nodes see it: the bridge (with the docker nodes' veths)
 * and, for QEMU nodes, a TAP each and the network's DHCP server, which runs while a VM is joined.
 */
export class ProjectManagement implements ManagementAccess {
  constructor(private readonly bridge: ManagementBridge, private readonly dhcp: ManagementDhcp) {}

  get network(): ManagementNetwork {
    return this.bridge.network;
  }

  get interfaceName(): string {
    return this.bridge.interfaceName;
  }

  get routeOut(): boolean {
    return this.bridge.routeOut;
  }

  /** Brings the bridge up (the DHCP server waits for the first VM). */
  up(): Promise<void> {
    return this.bridge.up();
  }

  /** The addresses are checked as a VM's are: a node address of the network's subnet, with its prefix length. */
  attachContainer(nodeId: string, pid: number, ipv4: string, ipv6: string | null): Promise<void> {
    this.nodeAddress(ipv4, 4);
    if (ipv6 !== null) this.nodeAddress(ipv6, 6);
    return this.bridge.attachContainer(nodeId, pid, ipv4, ipv6);
  }

  async attachVm(nodeId: string, mac: string, ipv4: string): Promise<string> {
    const address = this.nodeAddress(ipv4, 4);
    const missing = this.dhcp.missing();
    if (missing) throw new ConflictError(missing);
    const tap = await makeManagementTap(this.bridge, nodeId);
    try {
      await this.dhcp.set(nodeId, mac, address);
    } catch (err) {
      await removeManagementTap(nodeId);
      throw err;
    }
    return tap;
  }

  async detach(nodeId: string): Promise<void> {
    await this.bridge.detach(nodeId);
    await removeManagementTap(nodeId);
    await this.dhcp.remove(nodeId);
  }

  /** Stops the DHCP server, then removes everything the network added to the host (TAPs included, by the journal). */
  async down(): Promise<void> {
    await this.dhcp.stop();
    await this.bridge.down();
  }

  /** The bare address of `ADDRESS/N`, once it is a node address of the network's subnet of that family: ConflictError otherwise. */
  private nodeAddress(text: string, family: Family): string {
    const side = family === 4 ? this.network.ipv4 : this.network.ipv6;
    const refuse = () => new ConflictError(`the management address ${text} is not a node address of the management network ${side?.subnet ?? `(it has no IPv${family})`}`);
    if (!side) throw refuse();
    const cidr = parseCidr(side.subnet, family);
    const [bare, len, ...rest] = text.split('/');
    const value = addressValue(bare, family);
    if (typeof cidr === 'string' || value === undefined || rest.length || (len !== undefined && Number(len) !== cidr.prefix) || !cidrContains(cidr, value)
      || [cidr.network, cidr.network + cidrSize(cidr) - 1n, addressValue(side.gateway, family)].includes(value)) {
      throw refuse();
    }
    return addressText(value, family);
  }
}
