// The contract between a project's management network and the compute nodes that join it.

/** A management network as the API shows it (controller and compute alike). */
export interface ManagementNetwork {
  ipv4: { subnet: string; gateway: string };
  ipv6: { subnet: string; gateway: string } | null;
  /** The interface's name inside each node. */
  interface: string;
  /**
   * A route out (IPv4, masqueraded) for the nodes: a default route through the gateway. Absent or
   * false (the default): isolated, no forwarding between the bridge and any other interface.
   */
  nat?: boolean;
}

/** What a node of a project with a management network uses to join it. */
export interface ManagementAccess {
  /** The interface's name inside the node. */
  readonly interfaceName: string;
  /** Whether nodes get a default route through the gateway (the lab asked for `nat`). */
  readonly routeOut: boolean;
  /**
   * Joins a started container (by its first process's pid): a veth whose host end is in the
   * project's bridge and whose other end goes into the container as `interfaceName`, with its
   * addresses (with prefix length) set, no route but the subnet's (and, with `routeOut`, a
   * default route through the gateway, added once it is up).
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
