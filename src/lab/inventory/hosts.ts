// What every inventory format is made from: the lab's nodes that have a management address, in
// name order, each with its kind, image, groups and network OS. No I/O: built from server state.
import type { Node } from '../../client/nodes.js';
import { compareNames } from '../../render/sort.js';
import { bareAddress } from '../ssh-args.js';
import { LAB_SSH_USER, type LabSshFiles } from '../ssh-keys.js';

/** One reachable node. */
export interface InventoryHost {
  name: string;
  /** GNS3 node_type: docker, qemu. */
  kind: string;
  image: string | null;
  /** Bare addresses (no prefix length); ipv4 is always there, ipv6 when the lab has one. */
  ipv4: string;
  ipv6: string | null;
  /** With prefix length, as the server gives them. */
  mgmt_ipv4: string;
  mgmt_ipv6: string | null;
  /** Ansible's ansible_network_os / Nornir's platform, when the image says which. */
  network_os: string | null;
  /** The groups it is in: its kind, then `image_<image>`. */
  groups: string[];
}

/** Everything an inventory holds. */
export interface Inventory {
  lab: string;
  project_id: string;
  user: string;
  /** Paths on this machine of the lab's key and known_hosts. */
  private_key_file: string;
  known_hosts_file: string;
  /** The interpreter Ansible runs its modules with on the nodes (the ssh and frr images have it there). */
  python_interpreter: string;
  hosts: InventoryHost[];
}

/** Images that say which network OS they run: a repository name (the last path part, tag left off) → OS. */
const NETWORK_OS: readonly [RegExp, string][] = [
  [/^(frr|frrouting|frr-.+)$/, 'frr'],
];

/** The network OS an image says it runs (`emuctl-test/frr:abc`, `frrouting/frr:v8.4.0` → frr), or null. */
export function networkOsOf(image: string | null): string | null {
  if (!image) return null;
  const repo = image.replace(/[:@][^/]*$/, '').split('/').pop() ?? '';
  return NETWORK_OS.find(([pattern]) => pattern.test(repo))?.[1] ?? null;
}

/** An inventory group name made of an image's name: letters, digits and `_` only (Ansible warns on others). */
export function imageGroup(image: string): string {
  return `image_${image.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** A node's image: a docker node's `image`, a QEMU node's first disk. */
function imageOf(node: Node): string | null {
  const p = node.properties;
  const image = node.node_type === 'qemu' ? p.hda_disk_image : p.image;
  return typeof image === 'string' && image ? image : null;
}

/**
 * Whether a node name can be an inventory host: one word of letters, digits, `.`, `_` and `-`. The
 * name comes from the server and is written into ssh-config `Host` lines, /etc/hosts lines and YAML
 * keys, where a space or a line break would add settings of its own.
 */
export function isInventoryHostName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name);
}

/** The nodes with a management address whose name cannot be an inventory host (left out of it). */
export function unlistableNodes(nodes: readonly Node[]): string[] {
  return nodes.filter((node) => bareAddress(node.properties.mgmt_ipv4) && !isInventoryHostName(node.name)).map((node) => node.name);
}

/** The inventory of a lab's nodes: those with a management address (`mgmt_ipv4`) and a plain name, in name order. */
export function buildInventory(lab: { name: string; project_id: string }, nodes: readonly Node[], ssh: Pick<LabSshFiles, 'privateKey' | 'knownHosts'>): Inventory {
  const hosts = nodes.flatMap((node): InventoryHost[] => {
    const ipv4 = bareAddress(node.properties.mgmt_ipv4);
    if (!ipv4 || !isInventoryHostName(node.name)) return [];
    const image = imageOf(node);
    const mgmtIpv6 = typeof node.properties.mgmt_ipv6 === 'string' && node.properties.mgmt_ipv6 ? node.properties.mgmt_ipv6 : null;
    return [{
      name: node.name, kind: node.node_type, image, ipv4, ipv6: bareAddress(mgmtIpv6) ?? null,
      mgmt_ipv4: String(node.properties.mgmt_ipv4), mgmt_ipv6: mgmtIpv6,
      network_os: networkOsOf(image), groups: [node.node_type, ...(image ? [imageGroup(image)] : [])],
    }];
  }).sort((a, b) => compareNames(a.name, b.name));
  return {
    lab: lab.name, project_id: lab.project_id, user: LAB_SSH_USER,
    private_key_file: ssh.privateKey, known_hosts_file: ssh.knownHosts, python_interpreter: '/usr/bin/python3', hosts,
  };
}

/** The groups of an inventory in first-seen order (kinds first, as hosts list them), each with its hosts. */
export function groupsOf(inventory: Inventory): Map<string, InventoryHost[]> {
  const groups = new Map<string, InventoryHost[]>();
  for (const kind of [false, true]) {
    for (const host of inventory.hosts) {
      for (const group of host.groups.filter((g) => g.startsWith('image_') === kind)) groups.set(group, [...(groups.get(group) ?? []), host]);
    }
  }
  return groups;
}
