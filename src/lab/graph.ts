import { compareNames } from '../render/sort.js';
import type { LabSpec } from './model.js';
import { filterValue, normalFilters } from './filters.js';
import { mgmtAddress } from './inspect.js';
import { vpcsSettings, type LabState } from './state.js';

/** What a picture of a lab shows: nodes with a short description, links between ports with their filters. */
export interface Topology {
  name: string;
  nodes: { name: string; detail: string }[];
  links: { a: string; aPort: string; b: string; bPort: string; note: string }[];
}

const portText = (adapter: number, port: number) => `${adapter}/${port}`;

function filterNote(filters: Record<string, unknown[]>, suspended: boolean): string {
  const words = Object.entries(normalFilters(filters)).map(([type, values]) => `${type} ${filterValue(type, values)}`);
  if (suspended) words.push('suspended');
  return words.join(', ');
}

/** The topology of a lab file. */
export function topologyOfFile(spec: LabSpec): Topology {
  return {
    name: spec.name,
    nodes: spec.nodes.map((n) => ({ name: n.name, detail: [n.template !== undefined ? `template ${n.template}` : n.type, n.ip].filter(Boolean).join(' ') })),
    links: spec.links.map((l) => ({
      a: l.ends[0].node, aPort: portText(l.ends[0].adapter, l.ends[0].port), b: l.ends[1].node, bPort: portText(l.ends[1].adapter, l.ends[1].port),
      note: filterNote(l.filters, l.suspend),
    })),
  };
}

/** The topology of a lab on a server; with `mgmt`, each node's management addresses in its detail. */
export function topologyOfState(state: LabState, opts: { mgmt?: boolean } = {}): Topology {
  const name = (id: string) => state.nodes.find((n) => n.node_id === id)?.name ?? id.slice(0, 8);
  const mgmt = (n: LabState['nodes'][number]) => (opts.mgmt ? [mgmtAddress(n, 'mgmt_ipv4'), mgmtAddress(n, 'mgmt_ipv6')].filter(Boolean).map((a) => `mgmt ${a}`) : []);
  return {
    name: state.project?.name ?? '',
    nodes: state.nodes.map((n) => ({ name: n.name, detail: [n.node_type, n.node_type === 'vpcs' ? vpcsSettings(state, n).ip : undefined, ...mgmt(n)].filter(Boolean).join(' ') })),
    links: state.links.filter((l) => l.nodes.length === 2).map((l) => ({
      a: name(l.nodes[0].node_id), aPort: portText(l.nodes[0].adapter_number, l.nodes[0].port_number),
      b: name(l.nodes[1].node_id), bPort: portText(l.nodes[1].adapter_number, l.nodes[1].port_number),
      note: filterNote(l.filters as Record<string, unknown[]>, Boolean(l.suspend)),
    })).sort((x, y) => compareNames(`${x.a}:${x.aPort}`, `${y.a}:${y.aPort}`)),
  };
}

/**
 * The lab in box-drawing characters: each node in a box, the links from it listed under it as
 * branches (`├── 0/1 ── PC2 0/0  delay 20`); busiest nodes first, each link drawn once.
 */
export function renderAscii(topology: Topology): string {
  const degree = (name: string) => topology.links.filter((l) => l.a === name || l.b === name).length;
  const order = [...topology.nodes].sort((x, y) => degree(y.name) - degree(x.name) || compareNames(x.name, y.name));
  const drawn = new Set<number>();
  const out: string[] = [`${topology.name}`];
  for (const node of order) {
    const mine = topology.links.flatMap((l, i) => (drawn.has(i) || (l.a !== node.name && l.b !== node.name) ? [] : [i]));
    if (!mine.length && degree(node.name) > 0) continue;
    const title = `${node.name}  ${node.detail}`.trim();
    out.push(`┌${'─'.repeat(title.length + 2)}┐`, `│ ${title} │`, `└${'─'.repeat(title.length + 2)}┘`);
    mine.forEach((i, k) => {
      drawn.add(i);
      const l = topology.links[i];
      const [own, peer, peerPort] = l.a === node.name ? [l.aPort, l.b, l.bPort] : [l.bPort, l.a, l.aPort];
      const peerDetail = topology.nodes.find((n) => n.name === peer)?.detail ?? '';
      out.push(`  ${k === mine.length - 1 ? '└' : '├'}── ${own} ── ${peer} ${peerPort}${peerDetail ? ` (${peerDetail})` : ''}${l.note ? `  [${l.note}]` : ''}`);
    });
  }
  return out.join('\n') + '\n';
}

const quote = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Graphviz DOT (undirected graph, boxes, port numbers at the ends of each edge). */
export function renderDot(topology: Topology): string {
  const lines = [`graph ${quote(topology.name)} {`, '  graph [overlap=false, splines=true];', '  node [shape=box, fontname="Helvetica"];', '  edge [fontname="Helvetica", fontsize=10];'];
  for (const n of topology.nodes) lines.push(`  ${quote(n.name)} [label=${quote(n.detail ? `${n.name}\n${n.detail}` : n.name)}];`);
  for (const l of topology.links) {
    lines.push(`  ${quote(l.a)} -- ${quote(l.b)} [taillabel=${quote(l.aPort)}, headlabel=${quote(l.bPort)}${l.note ? `, label=${quote(l.note)}` : ''}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}

/** Mermaid flowchart, for Markdown documents. */
export function renderMermaid(topology: Topology): string {
  const ids = new Map(topology.nodes.map((n, i) => [n.name, `n${i}`]));
  const text = (t: string) => t.replace(/"/g, '#quot;');
  const lines = ['graph LR'];
  for (const n of topology.nodes) lines.push(`  ${ids.get(n.name)}["${text(n.detail ? `${n.name}<br/>${n.detail}` : n.name)}"]`);
  for (const l of topology.links) {
    lines.push(`  ${ids.get(l.a) ?? l.a} ---|"${text(`${l.aPort} – ${l.bPort}${l.note ? `<br/>${l.note}` : ''}`)}"| ${ids.get(l.b) ?? l.b}`);
  }
  return lines.join('\n') + '\n';
}
