import { linkName } from '../client/links.js';
import { consoleAddress } from '../client/nodes.js';
import { compareNames, sortedByName } from '../render/sort.js';
import { normalFilters } from './filters.js';
import type { RouterConfig } from './router-config.js';
import { vpcsSettings, type LabState } from './state.js';

/** One node of `lab inspect`. */
export interface InspectedNode {
  name: string;
  node_id: string;
  type: string;
  status: string;
  compute: string;
  /** `host:port`, or null when the node has no console. */
  console: string | null;
  /** From the VPCS startup script. */
  ip: string | null;
  gateway: string | null;
  dns: string | null;
  /** docker: the container's image. */
  image: string | null;
  /** docker, qemu in a lab with `mgmt:`: the management addresses with prefix length. */
  mgmt_ipv4: string | null;
  mgmt_ipv6: string | null;
  /** An FRR router (a docker node with /etc/frr/frr.conf): whether its running configuration holds what frr.conf asks; null otherwise. */
  config: RouterConfig | null;
}

/** One link of `lab inspect`. */
export interface InspectedLink {
  link: string;
  link_id: string;
  filters: Record<string, (number | string)[]>;
  suspended: boolean;
  capturing: boolean;
  capture_file: string | null;
}

/** `lab inspect --json`. */
export interface Inspection {
  lab: string;
  project_id: string;
  nodes: InspectedNode[];
  links: InspectedLink[];
}

/**
 * What a lab is on the server: its nodes (with console and addresses) and links (with filters and
 * captures). A VPCS's addresses come from its startup script, a docker node's from `fileAddresses`
 * (the lab file's `ip:`, when the lab was named by its file); an FRR router's configuration state from `configs`.
 */
export function inspectLab(state: LabState, serverUrl: string, fileAddresses: ReadonlyMap<string, string> = new Map(), configs: ReadonlyMap<string, RouterConfig> = new Map()): Inspection {
  const computeName = new Map(state.computes.map((c) => [c.compute_id, c.name]));
  const nodes = sortedByName(state.nodes, (n) => n.name).map((node): InspectedNode => {
    const where = consoleAddress(node, serverUrl);
    const settings = node.node_type === 'vpcs' ? vpcsSettings(state, node) : { ip: node.node_type === 'docker' ? fileAddresses.get(node.name) : undefined };
    return {
      name: node.name, node_id: node.node_id, type: node.node_type, status: node.status,
      compute: computeName.get(node.compute_id) ?? node.compute_id,
      console: where ? `${where.host.includes(':') ? `[${where.host}]` : where.host}:${where.port}` : null,
      ip: settings.ip ?? null, gateway: settings.gateway ?? null, dns: settings.dns ?? null,
      image: node.node_type === 'docker' && typeof node.properties.image === 'string' ? node.properties.image : null,
      mgmt_ipv4: mgmtAddress(node, 'mgmt_ipv4'), mgmt_ipv6: mgmtAddress(node, 'mgmt_ipv6'),
      config: configs.get(node.name) ?? null,
    };
  });
  const links = state.links.map((link): InspectedLink => ({
    link: linkName(link, state.nodes), link_id: link.link_id, filters: normalFilters(link.filters), suspended: Boolean(link.suspend),
    capturing: Boolean(link.capturing), capture_file: link.capturing ? link.capture_file_path ?? link.capture_file_name : null,
  })).sort((a, b) => compareNames(a.link, b.link));
  return { lab: state.project!.name, project_id: state.project!.project_id, nodes, links };
}

/** A node's management address (`mgmt_ipv4` / `mgmt_ipv6` property), or null. */
export function mgmtAddress(node: { properties: Record<string, unknown> }, key: 'mgmt_ipv4' | 'mgmt_ipv6'): string | null {
  const value = node.properties[key];
  return typeof value === 'string' && value ? value : null;
}
