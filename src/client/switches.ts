import { apiPath, type ApiClient } from './api.js';
import { resolveOne, type NamedKind } from './resolve.js';
import { emuctlOnly } from './server-kind.js';

/** The GNS3 node type of an Ethernet switch. */
export const SWITCH_NODE_TYPE = 'ethernet_switch';

/** Port types of a GNS3 Ethernet switch. */
export const PORT_TYPES = ['access', 'dot1q', 'qinq'] as const;
export type PortType = (typeof PORT_TYPES)[number];

/** Outer-tag ethertypes a qinq port may use (GNS3's list). */
export const QINQ_ETHERTYPES = ['0x8100', '0x88A8', '0x9100', '0x9200'] as const;

/** One entry of a switch's `ports_mapping`. */
export interface PortMapping {
  name: string;
  port_number: number;
  type: PortType | string;
  vlan?: number;
  /** '' unless the port is qinq. */
  ethertype?: string;
}

/** A switch as the controller returns it (a GNS3 node of type ethernet_switch). */
export interface SwitchNode {
  node_id: string;
  project_id: string;
  name: string;
  node_type: string;
  compute_id: string;
  status: string;
  properties: { ports_mapping?: PortMapping[]; [field: string]: unknown };
  [field: string]: unknown;
}

/** A GNS3 NIO as a compute returns it. */
export interface Nio {
  type: string;
  lport?: number;
  rhost?: string;
  rport?: number;
  filters?: Record<string, unknown>;
  suspend?: boolean;
  [field: string]: unknown;
}

/** The fields of a `nio_udp` to create. */
export interface UdpNioFields {
  lport: number;
  rhost: string;
  rport: number;
}

/** One port's state and counters from the compute's `stats` route. */
export interface PortStats {
  adapter_number: number;
  port_number: number;
  name: string;
  nio: Nio | null;
  capturing: boolean;
  capture_file_path: string | null;
  framesIn: number;
  bytesIn: number;
  framesOut: number;
  bytesOut: number;
  drops: number;
  errors: number;
}

/** One learned MAC address; `age` in whole seconds. */
export interface MacEntry {
  mac: string;
  vlan: number;
  port: number;
  age: number;
}

/**
 * Where a switch lives on the compute side: its project and node UUIDs, and the
 * compute that runs it as the controller knows it (undefined: the server we talk to).
 */
export interface SwitchAddress {
  projectId: string;
  nodeId: string;
  computeId?: string;
}

/** Naming rules for switches (used by name-or-UUID resolution). */
export const SWITCH_KIND: NamedKind<SwitchNode> = {
  kind: 'switch',
  id: (node) => node.node_id,
  name: (node) => node.name,
};

/** GNS3's default layout for `count` ports: access ports Ethernet0..count-1 in VLAN 1. */
export function accessPorts(count: number): PortMapping[] {
  return Array.from({ length: count }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: 'access', vlan: 1, ethertype: '' }));
}

/** GET /v2/projects/{project_id}/nodes, keeping the Ethernet switches. */
export async function listSwitches(api: ApiClient, projectId: string): Promise<SwitchNode[]> {
  const nodes = await api.get<SwitchNode[]>(apiPath('projects', projectId, 'nodes'));
  return nodes.filter((node) => node.node_type === SWITCH_NODE_TYPE);
}

/** The switch named by `ref` (name, UUID or unique UUID prefix) in the project. */
export async function findSwitch(api: ApiClient, projectId: string, ref: string): Promise<SwitchNode> {
  return resolveOne(await listSwitches(api, projectId), ref, SWITCH_KIND);
}

/** GET /v2/projects/{project_id}/nodes/{node_id}. */
export function getSwitch(api: ApiClient, projectId: string, nodeId: string): Promise<SwitchNode> {
  return api.get<SwitchNode>(apiPath('projects', projectId, 'nodes', nodeId));
}

/** POST /v2/projects/{project_id}/nodes with node_type ethernet_switch (GNS3 requires compute_id). */
export function createSwitch(api: ApiClient, projectId: string, fields: { name: string; computeId: string; ports_mapping: PortMapping[] }): Promise<SwitchNode> {
  return api.post<SwitchNode>(apiPath('projects', projectId, 'nodes'), {
    name: fields.name,
    node_type: SWITCH_NODE_TYPE,
    compute_id: fields.computeId,
    properties: { ports_mapping: fields.ports_mapping },
  });
}

/** PUT /v2/projects/{project_id}/nodes/{node_id} with a new ports_mapping. */
export function updateSwitchPorts(api: ApiClient, projectId: string, nodeId: string, portsMapping: PortMapping[]): Promise<SwitchNode> {
  return api.put<SwitchNode>(apiPath('projects', projectId, 'nodes', nodeId), { properties: { ports_mapping: portsMapping } });
}

/** DELETE /v2/projects/{project_id}/nodes/{node_id}. */
export function deleteSwitch(api: ApiClient, projectId: string, nodeId: string): Promise<void> {
  return api.delete(apiPath('projects', projectId, 'nodes', nodeId));
}

/**
 * The path of a compute-side switch route. The server's own compute is called
 * directly (`/v2/compute/projects/…`); a switch on another compute is reached
 * through the controller's forward route (`/v2/computes/{compute_id}/projects/…`),
 * which carries GET, POST and PUT.
 */
export function computeSwitchPath(at: SwitchAddress, ...rest: string[]): string {
  const tail = ['projects', at.projectId, SWITCH_NODE_TYPE, 'nodes', at.nodeId, ...rest];
  return at.computeId === undefined || at.computeId === 'local' ? apiPath('compute', ...tail) : apiPath('computes', at.computeId, ...tail);
}

/** GET …/ethernet_switch/nodes/{node_id}/stats: each port's NIO and counters (an emuctl daemon's route). */
export function switchStats(api: ApiClient, at: SwitchAddress): Promise<PortStats[]> {
  return emuctlOnly(api, 'port counters need', () => api.get<PortStats[]>(computeSwitchPath(at, 'stats')));
}

/** GET …/ethernet_switch/nodes/{node_id}/mac_table (an emuctl daemon's route). */
export function switchMacTable(api: ApiClient, at: SwitchAddress): Promise<MacEntry[]> {
  return emuctlOnly(api, 'switch mac-table needs', () => api.get<MacEntry[]>(computeSwitchPath(at, 'mac_table')));
}

/** The compute path of one port's NIO on the server's own compute (the forward route has no DELETE). */
function nioPath(at: SwitchAddress, adapter: number, port: number): string {
  return computeSwitchPath({ projectId: at.projectId, nodeId: at.nodeId }, 'adapters', String(adapter), 'ports', String(port), 'nio');
}

/** POST /v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{a}/ports/{p}/nio with a nio_udp. */
export function addSwitchNio(api: ApiClient, at: SwitchAddress, adapter: number, port: number, nio: UdpNioFields): Promise<Nio> {
  return api.post<Nio>(nioPath(at, adapter, port), { type: 'nio_udp', ...nio });
}

/** DELETE /v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{a}/ports/{p}/nio. */
export function removeSwitchNio(api: ApiClient, at: SwitchAddress, adapter: number, port: number): Promise<void> {
  return api.delete(nioPath(at, adapter, port));
}
