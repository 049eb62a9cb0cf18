import { linkEndLabel, type Link } from '../../client/links.js';
import type { Node } from '../../client/nodes.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable, type Column } from '../../render/table.js';

/** Colours a node status: started green, suspended yellow, stopped dim. */
function statusColor(cell: string, node: Node, style: Style): string {
  if (node.status === 'started') return style.green(cell);
  if (node.status === 'suspended') return style.yellow(cell);
  return style.dim(cell);
}

/** `host:port`, with brackets around an IPv6 host. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The console as `host:port` (with its type when not telnet), or `-` when the node has none, or
 * has no console host (GNS3 lists the nodes of a closed project without status or console_host).
 */
export function consoleCell(node: Node): string {
  if (node.console === null || node.console === undefined || !node.console_type || node.console_type === 'none') return '-';
  if (!node.console_host && node.status === undefined) return '-';
  const where = hostPort(node.console_host || '?', node.console);
  return node.console_type === 'telnet' ? where : `${where} (${node.console_type})`;
}

/** `local` for the built-in compute (its name is the host name), else the compute's name when known, else its id. */
function computeCell(node: Node, computeNames: ReadonlyMap<string, string>): string {
  if (node.compute_id === 'local') return 'local';
  return computeNames.get(node.compute_id) ?? node.compute_id;
}

/** The status, or `-` for a node GNS3 lists without one (its project is closed). */
function statusCell(node: Node): string {
  return node.status === undefined || node.status === null ? '-' : String(node.status);
}

/** The nodes as a table. */
export function nodeTable(nodes: readonly Node[], style: Style, computeNames: ReadonlyMap<string, string> = new Map()): string {
  const columns: Column<Node>[] = [
    { header: 'name', value: (n) => n.name },
    { header: 'type', value: (n) => n.node_type },
    { header: 'status', value: statusCell, color: statusColor },
    { header: 'compute', value: (n) => computeCell(n, computeNames) },
    { header: 'console', value: consoleCell },
    { header: 'id', value: (n) => n.node_id },
  ];
  return renderTable(nodes, columns, style);
}

/** One line per port: `0/3  Ethernet3  -> PC1:0/0`, or `-` when nothing is linked there. */
function portLines(node: Node, links: readonly Link[], nodes: readonly Node[], indent: number): string {
  const ports = node.ports ?? [];
  if (!ports.length) return '-';
  const width = Math.max(...ports.map((p) => p.name.length));
  return ports.map((p) => {
    const link = links.find((l) => l.nodes.some((e) => e.node_id === node.node_id && e.adapter_number === p.adapter_number && e.port_number === p.port_number));
    const peer = link?.nodes.find((e) => !(e.node_id === node.node_id && e.adapter_number === p.adapter_number && e.port_number === p.port_number));
    const where = `${p.adapter_number}/${p.port_number}`;
    return `${where.padEnd(5)} ${p.name.padEnd(width)}  ${peer ? `-> ${linkEndLabel(peer, nodes)}` : '-'}`.trimEnd();
  }).join('\n' + ' '.repeat(indent));
}

/** One node as aligned fields, with its ports and what they are linked to. */
export function nodeDetails(node: Node, style: Style, links: readonly Link[] = [], nodes: readonly Node[] = [node], computeNames: ReadonlyMap<string, string> = new Map()): string {
  // renderFields aligns values after the longest label, its colon and two spaces.
  const indent = (node.node_type === 'qemu' ? 'adapters:' : 'compute:').length + 2;
  return renderFields([
    ['name', node.name],
    ['id', node.node_id],
    ['type', node.node_type],
    ['status', statusColor(statusCell(node), node, style)],
    ['compute', computeCell(node, computeNames)],
    ['console', consoleCell(node)],
    ...(node.node_type === 'qemu' ? qemuFields(node, indent) : []),
    ['ports', portLines(node, links, nodes, indent)],
  ], style);
}

/** What `node show` adds for a QEMU VM: disks, accelerator, monitor state, adapters with MACs, the command line. */
function qemuFields(node: Node, indent: number): [string, string][] {
  const p = node.properties;
  const disks = ['hda', 'hdb', 'hdc', 'hdd'].filter((d) => p[`${d}_disk_image`]).map((d) =>
    `${d}  ${p[`${d}_disk_image`]} (${p[`${d}_disk_interface`]}${p.linked_clone === false ? '' : ', linked clone'})`);
  const boot = [p.kernel_image ? `kernel ${p.kernel_image}` : '', p.initrd ? `initrd ${p.initrd}` : '', p.cdrom_image ? `cdrom ${p.cdrom_image}` : ''].filter(Boolean);
  const adapters = (node.ports ?? []).map((port) => `${port.adapter_number}  ${port.name}  ${String(port.adapter_type ?? p.adapter_type ?? '?')}  ${String(port.mac_address ?? '?')}`);
  const sep = '\n' + ' '.repeat(indent);
  return [
    ['vm', `${p.ram ?? '?'} MB, ${p.cpus ?? '?'} CPU${p.cpus === 1 ? '' : 's'}, ${p.platform || 'x86_64'}, on close ${p.on_close ?? 'power_off'}`],
    ['accel', String(p.accel ?? '-')],
    ['monitor', String(p.monitor_status ?? '-')],
    ['disks', disks.length ? disks.join(sep) : '-'],
    ...(boot.length ? [['boot', boot.join(', ')] as [string, string]] : []),
    ['adapters', adapters.length ? adapters.join(sep) : '-'],
    ['command', typeof node.command_line === 'string' && node.command_line ? node.command_line : '-'],
  ];
}

/** "PC1 (1a2b3c4d-…)": a node named for messages. */
export function nodeLabel(node: Node): string {
  return `${node.name} (${node.node_id})`;
}
