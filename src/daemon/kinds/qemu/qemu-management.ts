import type { ManagementAccess } from '../../compute/management/types.js';
import { ConflictError } from '../../errors.js';
import { managementMac, type QemuSettings } from './qemu-settings.js';

/** A VM's management NIC while it runs: what QEMU gets, and the network that holds its TAP and lease. */
export interface JoinedManagement {
  nic: { type: string; mac: string; tap: string };
  network: ManagementAccess;
}

/**
 * A VM with a management address, about to start, joins its project's network on this compute: a
 * TAP in the network's bridge and a fixed DHCP lease of its address for the NIC's MAC. The NIC is
 * a device of the node's adapter type placed after the data adapters, which keep their numbers.
 * Undefined for a VM without an address; ConflictError when its project has no network here.
 */
export async function joinManagement(node: { id: string; name: string; settings: QemuSettings }, network: ManagementAccess | undefined): Promise<JoinedManagement | undefined> {
  const address = node.settings.mgmt_ipv4;
  if (!address) return undefined;
  if (!network) throw new ConflictError(`QEMU VM ${node.name} has the management address ${address} but its project has no management network on this compute`);
  const mac = managementMac(node.settings);
  const tap = await network.attachVm(node.id, mac, address);
  return { nic: { type: node.settings.adapter_type, mac, tap }, network };
}
