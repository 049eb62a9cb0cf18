// The topology file as the planner sees it: every node, link and capture of one lab, each with
// the place in the file it came from (for error messages), node ports and filters already in
// GNS3's terms.
import type { Pos } from './file-position.js';
import type { LabTest } from './lab-tests/model.js';
import type { KeptNodeFields } from './node-fields.js';
import type { LabPlan } from './generated/model.js';

export type { Pos };

/** One port of an Ethernet switch, in GNS3's ports_mapping terms. */
export interface SwitchPortSpec {
  port: number;
  name: string;
  type: 'access' | 'dot1q' | 'qinq';
  vlan: number;
  /** qinq only: 0x8100, 0x88A8, 0x9100 or 0x9200. */
  ethertype?: string;
}

/** One port of a cloud: the host interface (or TAP) it bridges to. */
export interface CloudPortSpec {
  port: number;
  name: string;
  type: 'ethernet' | 'tap';
  interface: string;
}

/** A port as a node of a known type has it (GNS3's node `ports`). */
export interface PortName {
  adapter: number;
  port: number;
  name: string;
  short: string;
}

/** A docker node's startup file: copied from beside the lab file into the container before it starts. */
export interface StartupFile {
  /** Absolute path in the container, normalised (`/etc/frr/frr.conf`). */
  path: string;
  /** The file it comes from, relative to the lab file's directory, as written. */
  source: string;
  pos: Pos;
  /** Its text, once read (see startup-files.ts); the planner and applier need it. */
  text?: string;
}

/** One node of the file: its place, name and compute, the per-type keys it keeps as written (node-fields.ts), and what the parser read from the others. */
export interface NodeSpec extends KeptNodeFields {
  name: string;
  pos: Pos;
  /** GNS3 node_type; absent for a node made from a template (the template says). */
  type?: string;
  /** `device: frr|linux`: a docker node emuctl configures itself (generated/). */
  device?: string;
  /** Template name or id (issue 9's templates). */
  template?: string;
  /** Compute name or id, as written (default: the file's defaults.compute, else local). */
  compute: string;
  computePos: Pos;
  x?: number;
  y?: number;
  /** ethernet_switch: every port, in order. */
  switchPorts?: SwitchPortSpec[];
  /** cloud: its ports, in order. */
  cloudPorts?: CloudPortSpec[];
  /** ethernet_hub: number of ports (Ethernet0..N-1). */
  hubPorts?: number;
  /** docker: environment variables and startup files (its image is the file's, with `${VAR}` expanded). */
  env?: Record<string, string>;
  files?: StartupFile[];
  /** Any other GNS3 node properties, sent as they are at creation. */
  properties?: Record<string, unknown>;
  /** docker, qemu with `mgmt:`: the management address pinned (IPv4 / IPv6 address, no prefix). */
  mgmtIp?: string;
  mgmtIpv6?: string;
}

/** `mgmt:` of a lab file: its management network (defaults filled in). */
export interface MgmtSpec {
  /** A CIDR or `auto`. */
  ipv4: string;
  /** A CIDR, `auto`, or false for none. */
  ipv6: string | false;
  /** The interface's name inside each node. */
  interface: string;
  /** Install the lab's SSH key in each docker node. */
  ssh: boolean;
  /** A route out for the nodes (IPv4, masqueraded); false: isolated. */
  nat: boolean;
  pos: Pos;
}

/** One end of a link: a node and a numbered port (names are resolved when the file is read). */
export interface EndSpec {
  node: string;
  adapter: number;
  port: number;
  pos: Pos;
}

/** One link of the file. */
export interface LinkSpec {
  ends: [EndSpec, EndSpec];
  /** GNS3 filters: type → values (`delay: [20, 0]`); a filter absent is off. */
  filters: Record<string, unknown[]>;
  suspend: boolean;
  /** Start a capture on it. */
  capture: boolean;
  pos: Pos;
}

/** A whole lab file. */
export interface LabSpec {
  /** The path it was read from (for messages). */
  file: string;
  /** The project's name. */
  name: string;
  namePos: Pos;
  nodes: NodeSpec[];
  links: LinkSpec[];
  /** `tests:`, in file order (emuctl lab test). */
  tests: LabTest[];
  /** The addressing and routing plan of device nodes and links without ports, when the file has them. */
  generated?: LabPlan;
  /** `mgmt:`; absent when the lab has no management network. */
  mgmt?: MgmtSpec;
}

/** `PC1:0/0`. */
export function endLabel(end: { node: string; adapter: number; port: number }): string {
  return `${end.node}:${end.adapter}/${end.port}`;
}

/** `PC1:0/0-SW1:0/0`, in the file's order. */
export function linkLabel(link: { ends: readonly { node: string; adapter: number; port: number }[] }): string {
  return link.ends.map(endLabel).join('-');
}

/** The same key for a link whichever way round its ends are written. */
export function linkKey(ends: readonly { node: string; adapter: number; port: number }[]): string {
  return ends.map(endLabel).sort().join(' ');
}

/** GNS3's default switch: 8 access ports Ethernet0..7 in VLAN 1. */
export const DEFAULT_SWITCH_PORTS = 8;
export const DEFAULT_HUB_PORTS = 8;

/** The ports a node of a known type has, or undefined when only the server knows (templates, other types). */
export function portsOf(node: NodeSpec): PortName[] | undefined {
  const ethernet = (adapter: number, port: number, n: number, name = `Ethernet${n}`): PortName => ({ adapter, port, name, short: `e${n}` });
  if (node.template !== undefined) return undefined;
  switch (node.type) {
    case 'ethernet_switch':
      return (node.switchPorts ?? []).map((p) => ethernet(0, p.port, p.port, p.name));
    case 'ethernet_hub':
      return Array.from({ length: node.hubPorts ?? DEFAULT_HUB_PORTS }, (_, i) => ethernet(0, i, i));
    case 'vpcs':
      return [ethernet(0, 0, 0)];
    case 'qemu':
      return Array.from({ length: node.adapters ?? 1 }, (_, i) => ethernet(i, 0, i));
    case 'docker':
      // GNS3 names a container's ports after its interfaces: adapter N is ethN.
      return Array.from({ length: node.adapters ?? 1 }, (_, i) => ethernet(i, 0, i, `eth${i}`));
    case 'cloud':
      return (node.cloudPorts ?? []).map((p) => ({ adapter: 0, port: p.port, name: p.name, short: p.name }));
    case 'nat':
      return [{ adapter: 0, port: 0, name: 'nat0', short: 'nat0' }];
    default:
      return undefined;
  }
}
