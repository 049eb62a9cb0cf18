// The contract between a project's management network and the compute nodes that join it.

/** A management network as the API shows it (controller and compute alike). */
export interface ManagementNetwork {
  ipv4: { subnet: string; gateway: string };
  ipv6: { subnet: string; gateway: string } | null;
  /** The interface's name inside each node. */
  interface: string;
}

/** What a node of a project with a management network uses to join it. */
export interface ManagementAccess {
  /** The interface's name inside the node. */
  readonly interfaceName: string;
  /**
   * Joins a started container (by its first process's pid): a veth whose host end is in the
   * project's bridge and whose other end goes into the container as `interfaceName`, with its
   * addresses (with prefix length) set, no route but the subnet's, then brought up.
   */
  attachContainer(nodeId: string, pid: number, ipv4: string, ipv6: string | null): Promise<void>;
  /**
   * Joins a QEMU VM about to start: a TAP (its name is returned) in the project's bridge, for QEMU to
   * open, and a fixed DHCP lease of `ipv4` (with prefix length) for `mac`, from the network's dnsmasq.
   */
  attachVm(nodeId: string, mac: string, ipv4: string): Promise<string>;
  /** Removes the node's host end (veth or TAP) and its DHCP lease, if they are still there. */
  detach(nodeId: string): Promise<void>;
}
