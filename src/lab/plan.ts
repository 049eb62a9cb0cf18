import type { Compute } from '../client/computes.js';
import type { Link, LinkFilters } from '../client/links.js';
import type { Node } from '../client/nodes.js';
import { applyStartupSettings } from '../util/vpcs-script.js';
import { LabFileError } from './locate.js';
import { endLabel, linkKey, linkLabel, type LabSpec, type LinkSpec, type NodeSpec, type StartupFile } from './model.js';
import { nodeCreateProperties, switchPortsOf, taggedImage, type SwitchPortsMapping } from './node-bodies.js';
import { filterValue, filterWords, normalFilters } from './filters.js';
import { vpcsSettings, type LabState } from './state.js';

/** One change to make on the server; `text` is its plan line (`+ node PC3 (vpcs on local)`). */
export type Step = { text: string } & (
  | { kind: 'create-project'; name: string }
  | { kind: 'delete-link'; linkId: string }
  | { kind: 'delete-node'; nodeId: string }
  | { kind: 'update-node'; node: string; nodeId: string; put?: Record<string, unknown>; script?: string; files?: StartupFile[]; restart: boolean }
  | { kind: 'create-node'; spec: NodeSpec; computeId: string }
  | { kind: 'create-link'; spec: LinkSpec }
  | { kind: 'update-link'; linkId: string; put: { filters?: LinkFilters; suspend?: boolean } }
  | { kind: 'start-capture'; spec: LinkSpec }
  | { kind: 'stop-capture'; linkId: string }
  | { kind: 'start-nodes'; names: string[] }
);

/** What `lab up` will do, in the order it does it. */
export interface Plan {
  lab: string;
  steps: Step[];
  /** Desired node name → id of the server node that becomes it (renamed nodes included). */
  kept: Map<string, string>;
}

/** Node types that a server creates started (GNS3's builtin switch, hub, cloud and NAT): a new one needs no start. */
const ALWAYS_STARTED = ['ethernet_switch', 'ethernet_hub', 'cloud', 'nat'];

/**
 * Diffs the file against the server: what to create, change in place, replace and delete so
 * that the server holds exactly the lab of the file, then which nodes to start. Nodes are
 * matched by name; an unmatched server node that has the type, compute and links of an
 * unmatched file node is taken as renamed (changed in place, so its links stay).
 */
export function planLab(spec: LabSpec, state: LabState): Plan {
  const computeIds = new Map(spec.nodes.map((n) => [n.name, computeIdOf(spec, n, state.computes)]));
  const steps: Step[] = [];
  if (!state.project) steps.push({ kind: 'create-project', name: spec.name, text: `+ project ${spec.name}` });

  const byName = new Map(state.nodes.map((n) => [n.name, n]));
  const kept = new Map<string, string>();
  const replaced = new Set<string>();
  const renames = findRenames(spec, state, computeIds);
  for (const node of spec.nodes) {
    const existing = byName.get(node.name) ?? renames.get(node.name);
    if (!existing) continue;
    if (sameKind(node, existing, computeIds.get(node.name)!)) kept.set(node.name, existing.node_id);
    else replaced.add(node.name);
  }
  const keptIds = new Set(kept.values());
  const desiredName = new Map([...kept].map(([name, id]) => [id, name]));

  // Links: server links by the key of their ends under the file's names.
  const serverLinks = new Map<string, Link>();
  const deleteLinks: Step[] = [];
  for (const link of state.links) {
    const ends = link.nodes.map((e) => ({ node: desiredName.get(e.node_id) ?? `#${e.node_id}`, adapter: e.adapter_number, port: e.port_number }));
    const label = link.nodes.map((e) => endLabel({ node: state.nodes.find((n) => n.node_id === e.node_id)?.name ?? e.node_id.slice(0, 8), adapter: e.adapter_number, port: e.port_number })).join('-');
    const wanted = ends.length === 2 && ends.every((e) => !e.node.startsWith('#')) && spec.links.some((l) => linkKey(l.ends) === linkKey(ends));
    if (wanted) serverLinks.set(linkKey(ends), link);
    else deleteLinks.push({ kind: 'delete-link', linkId: link.link_id, text: `- link ${label}` });
  }
  steps.push(...deleteLinks);

  for (const node of state.nodes) {
    if (!keptIds.has(node.node_id)) steps.push({ kind: 'delete-node', nodeId: node.node_id, text: `- node ${node.name}${replaced.has(node.name) ? ' (replaced)' : ''}` });
  }
  const starts: string[] = [];
  for (const node of spec.nodes) {
    const id = kept.get(node.name);
    const existing = state.nodes.find((n) => n.node_id === id);
    if (existing) {
      const update = nodeUpdate(node, existing, state);
      if (update) steps.push(update);
      if (existing.status !== 'started') starts.push(node.name);
    } else {
      const computeId = computeIds.get(node.name)!;
      steps.push({ kind: 'create-node', spec: node, computeId, text: `+ node ${node.name} (${node.template !== undefined ? `template ${node.template}` : node.type} on ${node.compute})` });
      if (!ALWAYS_STARTED.includes(node.type ?? '')) starts.push(node.name);
    }
  }
  for (const link of spec.links) {
    const existing = serverLinks.get(linkKey(link.ends));
    if (!existing) {
      const extra = [...filterWords(link.filters), ...(link.suspend ? ['suspended'] : [])];
      steps.push({ kind: 'create-link', spec: link, text: `+ link ${linkLabel(link)}${extra.length ? ` (${extra.join(', ')})` : ''}` });
      if (link.capture) steps.push({ kind: 'start-capture', spec: link, text: `+ capture ${linkLabel(link)}` });
      continue;
    }
    const update = linkUpdate(link, existing);
    if (update) steps.push(update);
    if (link.capture && !existing.capturing) steps.push({ kind: 'start-capture', spec: link, text: `+ capture ${linkLabel(link)}` });
    if (!link.capture && existing.capturing) steps.push({ kind: 'stop-capture', linkId: existing.link_id, text: `- capture ${linkLabel(link)}` });
  }
  const restarts = new Set(steps.flatMap((s) => (s.kind === 'update-node' && s.restart ? [s.node] : [])));
  // A restarted node is stopped by its update and started again here.
  const toStart = [...starts, ...[...restarts].filter((name) => !starts.includes(name))];
  if (toStart.length) steps.push({ kind: 'start-nodes', names: toStart, text: `> start ${toStart.join(', ')}` });
  return { lab: spec.name, steps, kept };
}

/** The compute id a node's `compute:` names (by id, then by name); unknown is a file error. */
function computeIdOf(spec: LabSpec, node: NodeSpec, computes: Compute[]): string {
  if (node.compute === 'local' && !computes.some((c) => c.name === 'local')) return 'local';
  const found = computes.find((c) => c.compute_id === node.compute) ?? computes.filter((c) => c.name === node.compute)[0];
  if (found) return found.compute_id;
  const known = computes.map((c) => (c.name === c.compute_id ? c.name : `${c.name} (${c.compute_id})`)).join(', ') || 'none';
  throw new LabFileError(spec.file, node.computePos, `unknown compute "${node.compute}" for node ${node.name}; the server has: ${known}`);
}

/** Same type (or template) and compute: the node can be changed in place. */
function sameKind(spec: NodeSpec, node: Node, computeId: string): boolean {
  if (node.compute_id !== computeId) return false;
  return spec.template !== undefined || spec.type === node.node_type;
}

/** Unmatched file nodes → the unmatched server node each one renames, when exactly one fits and fits only it. */
function findRenames(spec: LabSpec, state: LabState, computeIds: Map<string, string>): Map<string, Node> {
  const names = new Set(spec.nodes.map((n) => n.name));
  const serverNames = new Set(state.nodes.map((n) => n.name));
  const orphans = state.nodes.filter((n) => !names.has(n.name));
  const newcomers = spec.nodes.filter((n) => !serverNames.has(n.name));
  const nameOf = new Map(state.nodes.map((n) => [n.node_id, n.name]));
  const serverSignature = (node: Node) => state.links.flatMap((l) => {
    const i = l.nodes.findIndex((e) => e.node_id === node.node_id);
    if (i < 0 || l.nodes.length !== 2) return [];
    const [own, peer] = [l.nodes[i], l.nodes[1 - i]];
    return [`${own.adapter_number}/${own.port_number}>${endLabel({ node: nameOf.get(peer.node_id) ?? '?', adapter: peer.adapter_number, port: peer.port_number })}`];
  }).sort().join(' ');
  const fileSignature = (node: NodeSpec) => spec.links.flatMap((l) => {
    const i = l.ends.findIndex((e) => e.node === node.name);
    if (i < 0) return [];
    const [own, peer] = [l.ends[i], l.ends[1 - i]];
    return [`${own.adapter}/${own.port}>${endLabel(peer)}`];
  }).sort().join(' ');
  const fits = (n: NodeSpec, s: Node) => sameKind(n, s, computeIds.get(n.name)!) && fileSignature(n) === serverSignature(s);
  const renames = new Map<string, Node>();
  for (const n of newcomers) {
    const candidates = orphans.filter((s) => fits(n, s));
    if (candidates.length === 1 && newcomers.filter((other) => fits(other, candidates[0])).length === 1) renames.set(n.name, candidates[0]);
  }
  return renames;
}

/** The in-place change of a node, if it needs one. */
function nodeUpdate(spec: NodeSpec, node: Node, state: LabState): Step | undefined {
  const words: string[] = [];
  const put: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  if (node.name !== spec.name) {
    words.push(`→ ${spec.name}`);
    put.name = spec.name;
  }
  for (const axis of ['x', 'y'] as const) {
    if (spec[axis] !== undefined && spec[axis] !== node[axis]) {
      words.push(`${axis} ${node[axis] ?? 0}→${spec[axis]}`);
      put[axis] = spec[axis];
    }
  }
  if (spec.type === 'ethernet_switch') {
    const change = switchPortWords(switchPortsOf(node), nodeCreateProperties(spec).ports_mapping as SwitchPortsMapping);
    if (change.length) {
      words.push(...change);
      properties.ports_mapping = nodeCreateProperties(spec).ports_mapping;
    }
  }
  if (spec.type === 'ethernet_hub') {
    const have = (node.properties.ports_mapping as unknown[] | undefined)?.length ?? 8;
    const want = (nodeCreateProperties(spec).ports_mapping as unknown[]).length;
    if (have !== want) {
      words.push(`ports ${have}→${want}`);
      properties.ports_mapping = nodeCreateProperties(spec).ports_mapping;
    }
  }
  for (const [key, value] of Object.entries(nodeCreateProperties(spec))) {
    if (key === 'ports_mapping') continue;
    const have = key === 'image' && spec.type === 'docker' && typeof node.properties.image === 'string' ? taggedImage(node.properties.image) : node.properties[key];
    if (JSON.stringify(have) !== JSON.stringify(value)) {
      words.push(propertyWords(key, node.properties[key], value));
      properties[key] = value;
    }
  }
  if (Object.keys(properties).length) put.properties = properties;
  let script: string | undefined;
  if (spec.type === 'vpcs') {
    const have = vpcsSettings(state, node);
    for (const key of ['ip', 'gateway', 'dns'] as const) if ((have[key] ?? '') !== (spec[key] ?? '')) words.push(`${key} ${have[key] ?? '-'}→${spec[key] ?? '-'}`);
    if (words.some((w) => /^(ip|gateway|dns) /.test(w))) {
      script = applyStartupSettings(state.scripts.get(node.node_id) ?? '', { name: spec.name, ip: spec.ip ?? null, gateway: spec.gateway, dns: spec.dns ?? null });
    }
  }
  const files = changedStartupFiles(spec, node, state);
  for (const file of files) words.push(`file ${file.path} ${state.startupFiles?.get(node.node_id)?.get(file.path) === undefined ? 'added' : 'changed'}`);
  if (!words.length) return undefined;
  // A new script or startup file is read when the node starts.
  const restart = (script !== undefined || files.length > 0) && node.status === 'started';
  return { kind: 'update-node', node: spec.name, nodeId: node.node_id, put: Object.keys(put).length ? put : undefined, script, ...(files.length ? { files } : {}), restart,
    text: `~ node ${node.name} ${words.join(', ')}${restart ? ' (restarts it)' : ''}` };
}

/** `ram 256→512`; a multi-line or structured value (a docker environment) just `environment changed`. */
function propertyWords(key: string, have: unknown, want: unknown): string {
  const plain = (v: unknown) => v === undefined || v === null || (typeof v !== 'object' && !String(v).includes('\n'));
  return plain(have) && plain(want) ? `${key} ${have ?? '-'}→${want}` : `${key} changed`;
}

/** The startup files of a docker node whose text differs from the server's copy (all of them when the server's was not read). */
function changedStartupFiles(spec: NodeSpec, node: Node, state: LabState): StartupFile[] {
  if (spec.type !== 'docker' || !spec.files) return [];
  const have = state.startupFiles?.get(node.node_id);
  return spec.files.filter((f) => f.text !== undefined && (!have || have.get(f.path) !== f.text));
}

/** `port 0 vlan 1→10`, `port 7 access→dot1q`, `ports 8→12`. */
function switchPortWords(have: SwitchPortsMapping, want: SwitchPortsMapping): string[] {
  const words: string[] = [];
  if (have.length !== want.length) words.push(`ports ${have.length}→${want.length}`);
  for (const port of want) {
    const old = have.find((p) => p.port_number === port.port_number);
    if (!old) continue;
    if (old.type !== port.type) words.push(`port ${port.port_number} ${old.type}→${port.type}`);
    if ((old.vlan ?? 1) !== port.vlan) words.push(`port ${port.port_number} vlan ${old.vlan ?? 1}→${port.vlan}`);
    if (port.type === 'qinq' && (old.ethertype || '0x8100').toUpperCase() !== (port.ethertype || '0x8100').toUpperCase()) {
      words.push(`port ${port.port_number} ethertype ${old.ethertype || '0x8100'}→${port.ethertype}`);
    }
    if (old.name !== port.name) words.push(`port ${port.port_number} name ${old.name}→${port.name}`);
  }
  return words;
}

/** The in-place change of a link's filters and suspension, if it needs one. */
function linkUpdate(spec: LinkSpec, link: Link): Step | undefined {
  const have = normalFilters(link.filters);
  const want = normalFilters(spec.filters);
  const words: string[] = [];
  for (const type of [...new Set([...Object.keys(have), ...Object.keys(want)])].sort()) {
    if (JSON.stringify(have[type]) !== JSON.stringify(want[type])) words.push(`${type} ${filterValue(type, have[type])}→${filterValue(type, want[type])}`);
  }
  const put: { filters?: LinkFilters; suspend?: boolean } = {};
  if (words.length) put.filters = spec.filters as LinkFilters;
  if (Boolean(link.suspend) !== spec.suspend) {
    words.push(spec.suspend ? 'suspend' : 'resume');
    put.suspend = spec.suspend;
  }
  if (!words.length) return undefined;
  return { kind: 'update-link', linkId: link.link_id, put, text: `~ link ${linkLabel(spec)} ${words.join(', ')}` };
}
