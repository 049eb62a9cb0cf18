import type { MacEntry, Nio, PortMapping, PortStats, SwitchNode } from '../../client/switches.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable } from '../../render/table.js';

/** "SW1 (1a2b…)": a switch named for messages. */
export function switchLabel(node: Pick<SwitchNode, 'name' | 'node_id'>): string {
  return `${node.name} (${node.node_id})`;
}

/** A switch's ports_mapping (empty when the server sent none). */
export function portsOf(node: SwitchNode): PortMapping[] {
  return node.properties?.ports_mapping ?? [];
}

function statusColor(cell: string, node: SwitchNode, style: Style): string {
  return node.status === 'started' ? style.green(cell) : node.status === 'stopped' ? style.dim(cell) : style.yellow(cell);
}

/** The switches of a project as a table. */
export function switchTable(nodes: readonly SwitchNode[], style: Style): string {
  return renderTable(nodes, [
    { header: 'name', value: (n) => n.name },
    { header: 'status', value: (n) => n.status, color: statusColor },
    { header: 'ports', value: (n) => String(portsOf(n).length) },
    { header: 'compute', value: (n) => n.compute_id },
    { header: 'id', value: (n) => n.node_id },
  ], style);
}

/** A NIO in one cell: `lport->rhost:rport` for UDP tunnels, the type otherwise; '-' for none. */
export function nioText(nio: Nio | null | undefined): string {
  if (!nio) return '-';
  const host = nio.rhost?.includes(':') ? `[${nio.rhost}]` : nio.rhost;
  const text = nio.type === 'nio_udp' ? `${nio.lport}->${host}:${nio.rport}` : nio.type;
  return nio.suspend ? `${text} (suspended)` : text;
}

/** A port's type, with the outer ethertype for qinq. */
function typeText(port: PortMapping): string {
  return port.type === 'qinq' && port.ethertype ? `qinq ${port.ethertype}` : String(port.type);
}

interface PortRow {
  mapping?: PortMapping;
  stats?: PortStats;
}

/** One row per port (from ports_mapping and the compute's stats, by port number), in port order. */
function portRows(mapping: readonly PortMapping[], stats: readonly PortStats[] | undefined): Array<[number, PortRow]> {
  const rows = new Map<number, PortRow>();
  for (const port of mapping) rows.set(port.port_number, { mapping: port });
  for (const port of stats ?? []) rows.set(port.port_number, { ...rows.get(port.port_number), stats: port });
  return [...rows.entries()].sort(([a], [b]) => a - b);
}

/** The ports table of `switch show`; counters are '-' when the compute gave no stats. */
export function portsTable(mapping: readonly PortMapping[], stats: readonly PortStats[] | undefined, style: Style): string {
  const count = (pick: (s: PortStats) => number) => ([, row]: [number, PortRow]) => (row.stats ? String(pick(row.stats)) : '-');
  return renderTable(portRows(mapping, stats), [
    { header: 'port', value: ([number]) => String(number) },
    { header: 'name', value: ([, row]) => row.mapping?.name ?? row.stats?.name ?? '-' },
    { header: 'type', value: ([, row]) => (row.mapping ? typeText(row.mapping) : '-') },
    { header: 'vlan', value: ([, row]) => (row.mapping?.vlan === undefined ? '-' : String(row.mapping.vlan)) },
    { header: 'nio', value: ([, row]) => nioText(row.stats?.nio), color: (cell, [, row]) => (row.stats?.nio ? style.cyan(cell) : cell) },
    { header: 'frames in', value: count((s) => s.framesIn) },
    { header: 'bytes in', value: count((s) => s.bytesIn) },
    { header: 'frames out', value: count((s) => s.framesOut) },
    { header: 'bytes out', value: count((s) => s.bytesOut) },
    { header: 'drops', value: count((s) => s.drops), color: (cell, [, row]) => (row.stats?.drops ? style.yellow(cell) : cell) },
  ], style);
}

/** `switch show`: the switch's fields, then its ports table. */
export function switchDetails(node: SwitchNode, stats: readonly PortStats[] | undefined, style: Style): string {
  const fields = renderFields([
    ['name', node.name],
    ['id', node.node_id],
    ['project', node.project_id],
    ['compute', node.compute_id],
    ['status', statusColor(node.status, node, style)],
  ], style);
  return `${fields}\n${portsTable(portsOf(node), stats, style)}`;
}

/** The MAC table as the compute sorts it (VLAN, then MAC), with port names from the ports_mapping. */
export function macTable(entries: readonly MacEntry[], mapping: readonly PortMapping[], style: Style): string {
  const names = new Map(mapping.map((port) => [port.port_number, port.name]));
  return renderTable(entries, [
    { header: 'mac', value: (e) => e.mac },
    { header: 'vlan', value: (e) => String(e.vlan) },
    { header: 'port', value: (e) => String(e.port) },
    { header: 'name', value: (e) => names.get(e.port) ?? '-' },
    { header: 'age', value: (e) => `${e.age}s` },
  ], style);
}
