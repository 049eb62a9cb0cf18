// The topology and addressing plan of a generated lab: what the lab file's device nodes and
// links without ports become once interfaces and addresses are allocated. Modules (OSPF, BGP)
// and devices (frr, linux) turn it into configuration text.
import type { Pos } from '../file-position.js';
import type { Prefix } from './ip.js';

export type Role = 'router' | 'host';

/** OSPF settings as written on the lab, a node or a link (all optional). */
export interface OspfSettings {
  area?: string;
  cost?: number;
}

/** One member of a generated link: a device node's interface. */
export interface Member {
  node: string;
  adapter: number;
  pos: Pos;
  /** On a VLAN's segment: the member's trunk carries the VLAN, as sub-interface eth<adapter>.<vlan>. */
  vlan?: number;
}

/** A VLAN of `vlans:` (modules: [vlan]). */
export interface PlanVlan {
  name: string;
  id: number;
  pos: Pos;
  /** `prefix:`: its pinned IPv4 subnet. */
  prefix?: Prefix;
}

/** A link between device nodes: point-to-point (two routers), or a LAN (a host on it, or more than two members). */
export interface PlanLink {
  /** Its index in `links:`. */
  index: number;
  pos: Pos;
  kind: 'p2p' | 'lan';
  members: Member[];
  /** The switch made for a LAN of more than two members (or with VLANs). */
  switchName?: string;
  /** A VLAN's segment of a LAN (its members: that VLAN's access ports and trunks). */
  vlan?: PlanVlan;
  ospf: OspfSettings;
  p2pPrefix?: 30 | 31;
  /** Pinned addresses, per family, one per member. */
  pinned: { 4?: Prefix[]; 6?: Prefix[] };
  /** Its subnets, once allocated. */
  subnet: { 4?: Prefix; 6?: Prefix };
}

/** One configured interface of a device node. */
export interface PlanInterface {
  name: string;
  adapter: number;
  link: PlanLink;
  /** Its addresses (with the link's prefix length). */
  address: { 4?: Prefix; 6?: Prefix };
  /** The other members of the link, with their addresses on it. */
  peers: { node: string; address: { 4?: Prefix; 6?: Prefix } }[];
  /** A host sits on the link: OSPF keeps it passive, BGP advertises it. */
  hostLink: boolean;
  /** A VLAN sub-interface (`name` is parent.id): made in the container, on top of `parent`. */
  vlan?: { parent: string; id: number };
}

/** One device node and everything generated for it. */
export interface PlanNode {
  name: string;
  pos: Pos;
  device: string;
  role: Role;
  /** Pinned loopbacks, per family. */
  pinnedLoopback: { 4?: Prefix; 6?: Prefix };
  loopback: { 4?: Prefix; 6?: Prefix };
  /** The IPv4 loopback address. */
  routerId?: string;
  interfaces: PlanInterface[];
  /** Hosts: the default gateways (first router on their first link with one). */
  gateway: { 4?: Prefix; 6?: Prefix };
  ospf: OspfSettings;
  bgp: { as?: number; rr: boolean; pos: Pos };
}

/** Address pools; `6` absent when the lab has no IPv6. */
export interface Pools {
  4: { loopback: Prefix; p2p: Prefix; lan: Prefix };
  6?: { loopback: Prefix; p2p: Prefix; lan: Prefix };
  p2pPrefix: 30 | 31;
}

/** The lab-wide module settings. */
export interface ModuleSettings {
  modules: ('ospf' | 'bgp' | 'vlan')[];
  ospf: { area: string; cost?: number; hello: number; dead: number };
  bgp: { as?: number };
}

/** A generated lab's plan: nodes in file order, links in file order. */
export interface LabPlan {
  nodes: PlanNode[];
  links: PlanLink[];
  pools: Pools;
  settings: ModuleSettings;
}
