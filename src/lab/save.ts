import { stringify } from 'yaml';
import type { Link } from '../client/links.js';
import type { Node } from '../client/nodes.js';
import { compareNames } from '../render/sort.js';
import { DEFAULT_HUB_PORTS, DEFAULT_SWITCH_PORTS, endLabel } from './model.js';
import { switchPortsOf, type SwitchPortsMapping } from './node-bodies.js';
import { normalFilters } from './filters.js';
import { vpcsSettings, type LabState } from './state.js';

type Json = Record<string, unknown>;

/**
 * The lab file of a project as the server has it, built by `lab up` or by hand or in the GNS3
 * GUI: `lab up` of it on a fresh server gives the same nodes (type, compute, switch ports,
 * addresses, qemu settings, positions), links (filters, suspension) and captures.
 * `schemaRef` goes in the `# yaml-language-server: $schema=` line.
 */
export function saveLab(state: LabState, schemaRef?: string): string {
  const computeName = new Map(state.computes.map((c) => [c.compute_id, c.name]));
  const nodes: Json = {};
  for (const node of [...state.nodes].sort((a, b) => compareNames(a.name, b.name))) {
    const entry: Json = { type: node.node_type };
    if (node.compute_id !== 'local') entry.compute = computeName.get(node.compute_id) ?? node.compute_id;
    Object.assign(entry, typeSettings(node, state));
    if (node.x || node.y) Object.assign(entry, { x: node.x ?? 0, y: node.y ?? 0 });
    nodes[node.name] = entry;
  }
  const nameOf = new Map(state.nodes.map((n) => [n.node_id, n.name]));
  const end = (e: Link['nodes'][number]) => endLabel({ node: nameOf.get(e.node_id) ?? e.node_id, adapter: e.adapter_number, port: e.port_number });
  const links: unknown[] = [];
  const captures: string[] = [];
  const sorted = state.links.filter((l) => l.nodes.length === 2).map((l) => ({ l, ends: l.nodes.map(end) }))
    .sort((a, b) => compareNames(a.ends.join('-'), b.ends.join('-')));
  for (const { l, ends } of sorted) {
    const filters = fileFilters(l);
    if (!Object.keys(filters).length && !l.suspend) links.push(ends);
    else links.push({ endpoints: ends, ...(Object.keys(filters).length ? { filters } : {}), ...(l.suspend ? { suspend: true } : {}) });
    if (l.capturing) captures.push(ends.join('-'));
  }
  const doc: Json = { name: state.project!.name, nodes };
  if (links.length) doc.links = links;
  if (captures.length) doc.captures = captures;
  const yaml = stringify(doc, { lineWidth: 0, flowCollectionPadding: false, collectionStyle: 'any' });
  const note = state.nodes.some((n) => n.node_type === 'docker') ? `${DOCKER_FILES_NOTE}\n` : '';
  return `${schemaRef ? `# yaml-language-server: $schema=${schemaRef}\n` : ''}${note}${compactLinks(yaml)}`;
}

/** The file keys of a node's type: switch ports, cloud ports, hub port count, VPCS addresses, qemu settings. */
function typeSettings(node: Node, state: LabState): Json {
  switch (node.node_type) {
    case 'ethernet_switch':
      return switchSettings(switchPortsOf(node));
    case 'cloud': {
      const mapping = (node.properties.ports_mapping ?? []) as { name: string; port_number: number; type: string; interface: string }[];
      return { ports: Object.fromEntries(mapping.map((p) => [p.port_number, { ...(p.type === 'tap' ? { type: 'tap' } : {}), interface: p.interface, ...(p.name !== p.interface ? { name: p.name } : {}) }])) };
    }
    case 'ethernet_hub': {
      const count = (node.properties.ports_mapping as unknown[] | undefined)?.length ?? DEFAULT_HUB_PORTS;
      return count === DEFAULT_HUB_PORTS ? {} : { port_count: count };
    }
    case 'vpcs': {
      const s = vpcsSettings(state, node);
      return { ...(s.ip ? { ip: s.ip } : {}), ...(s.gateway ? { gateway: s.gateway } : {}), ...(s.dns ? { dns: s.dns } : {}) };
    }
    case 'qemu': {
      const p = node.properties;
      return {
        ...(p.hda_disk_image ? { image: p.hda_disk_image } : {}),
        ...(typeof p.ram === 'number' ? { ram: p.ram } : {}),
        ...(typeof p.adapters === 'number' ? { adapters: p.adapters } : {}),
        ...(typeof p.cpus === 'number' && p.cpus !== 1 ? { cpus: p.cpus } : {}),
        ...(p.kernel_image ? { kernel: p.kernel_image } : {}),
        ...(p.initrd ? { initrd: p.initrd } : {}),
        ...(p.kernel_command_line ? { kernel_command_line: p.kernel_command_line } : {}),
        ...(p.adapter_type && p.adapter_type !== 'e1000' ? { adapter_type: p.adapter_type } : {}),
      };
    }
    case 'docker':
      return dockerSettings(node.properties);
    default:
      return {};
  }
}

/**
 * A docker node's image, adapters, env and cmd, and the GNS3 properties a lab file has no key for
 * (volumes, hosts, console, privileged). Startup files cannot be told from what the container
 * wrote into its volumes, so `files:` is not saved (the header comment says so).
 */
function dockerSettings(p: Json): Json {
  const lines = typeof p.environment === 'string' ? p.environment.split('\n').filter(Boolean) : [];
  const asEnv = lines.every((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line));
  const env = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  const properties: Json = {
    ...(Array.isArray(p.extra_volumes) && p.extra_volumes.length ? { extra_volumes: p.extra_volumes } : {}),
    ...(p.extra_hosts ? { extra_hosts: p.extra_hosts } : {}),
    ...(p.console_type && p.console_type !== 'telnet' ? { console_type: p.console_type } : {}),
    ...(p.privileged === true ? { privileged: true } : {}),
    ...(lines.length && !asEnv ? { environment: p.environment } : {}),
  };
  return {
    ...(p.image ? { image: p.image } : {}),
    ...(typeof p.adapters === 'number' && p.adapters !== 1 ? { adapters: p.adapters } : {}),
    ...(lines.length && asEnv ? { env } : {}),
    ...(p.start_command ? { cmd: p.start_command } : {}),
    ...(Object.keys(properties).length ? { properties } : {}),
  };
}

/** Said at the top of a saved lab with docker nodes. */
export const DOCKER_FILES_NOTE = '# docker nodes: startup files (files:) are not saved; their volumes (properties.extra_volumes) keep what the containers hold';

/** `ports:` with consecutive ports of the same settings as ranges; access ports in VLAN 1 left out. */
function switchSettings(mapping: SwitchPortsMapping): Json {
  // A Map keeps the ports in order (an object would put "7" before "0-3").
  const ports = new Map<string | number, Json>();
  const settings = (p: SwitchPortsMapping[number]): Json => ({
    ...(p.type !== 'access' ? { type: p.type } : {}),
    ...((p.vlan ?? 1) !== 1 ? { vlan: p.vlan } : {}),
    ...(p.type === 'qinq' && p.ethertype && p.ethertype.toUpperCase() !== '0X8100' ? { ethertype: p.ethertype.replace(/^0X/i, '0x').replace(/a8$/, 'A8') } : {}),
    ...(p.name !== `Ethernet${p.port_number}` ? { name: p.name } : {}),
  });
  const sorted = [...mapping].sort((a, b) => a.port_number - b.port_number);
  for (let i = 0; i < sorted.length; i++) {
    const here = settings(sorted[i]);
    if (!Object.keys(here).length) continue;
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1].port_number === sorted[j].port_number + 1 && !here.name
      && JSON.stringify(settings(sorted[j + 1])) === JSON.stringify(here)) j++;
    ports.set(j > i ? `${sorted[i].port_number}-${sorted[j].port_number}` : sorted[i].port_number, here);
    i = j;
  }
  const highest = Math.max(-1, ...sorted.filter((p) => Object.keys(settings(p)).length).map((p) => p.port_number));
  const count = mapping.length;
  const derived = Math.max(DEFAULT_SWITCH_PORTS, highest + 1);
  const contiguous = sorted.every((p, i) => p.port_number === i);
  return { ...(ports.size ? { ports } : {}), ...(count !== derived && contiguous ? { port_count: count } : {}) };
}

/** GNS3 filter arrays in the file's form: `delay: 20` (or `[20, 5]` with jitter), `bpf: text`, others a number. */
function fileFilters(link: Link): Json {
  const out: Json = {};
  for (const [type, values] of Object.entries(normalFilters(link.filters))) {
    if (type === 'delay') out.delay = values[1] ? [values[0], values[1]] : values[0];
    else out[type] = values[0];
  }
  return out;
}

/** `- - PC1:0/0\n  - SW1:0/0` → `- [PC1:0/0, SW1:0/0]`: one line per plain link. */
function compactLinks(yaml: string): string {
  return yaml.replace(/^( *)- - (\S+)\n\1  - (\S+)$/gm, '$1- [$2, $3]');
}
