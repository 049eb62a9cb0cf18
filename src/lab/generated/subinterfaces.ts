// VLAN sub-interfaces in a container's start script: the lines that make ethX.ID on top of ethX.
// FRR's frr.conf cannot create interfaces, so the frr device runs them before FRR starts; the
// linux device runs them in its start script.

/** The shell lines that make a sub-interface on its parent (which the caller brings up first); a kernel without 802.1Q says so on stderr. */
export function subinterfaceLines(iface: { name: string; vlan?: { parent: string; id: number } }): string[] {
  const v = iface.vlan!;
  return [
    `ip link add link ${v.parent} name ${iface.name} type vlan id ${v.id} || echo "${iface.name}: cannot make an 802.1Q sub-interface (the kernel needs CONFIG_VLAN_8021Q)" >&2`,
    `ip link set ${iface.name} up`,
  ];
}
