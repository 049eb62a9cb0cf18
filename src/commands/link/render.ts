import { linkEndLabel, linkName, type Link, type LinkEnd, type LinkFilters } from '../../client/links.js';
import type { LinkRates, LinkTraffic } from '../../client/link-traffic.js';
import type { Node } from '../../client/nodes.js';
import { formatBytes } from '../../render/progress.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable, type Column } from '../../render/table.js';

/** `PC1:0/0 (e0)`: an end with its port's short name when the node lists it. */
function endCell(end: LinkEnd, nodes: readonly Node[]): string {
  const node = nodes.find((n) => n.node_id === end.node_id);
  const port = node?.ports?.find((p) => p.adapter_number === end.adapter_number && p.port_number === end.port_number);
  const name = port ? port.short_name || port.name : undefined;
  return name ? `${linkEndLabel(end, nodes)} (${name})` : linkEndLabel(end, nodes);
}

/** `PC1:0/0 (e0) <-> SW1:0/3 (e3)`. */
export function endsCell(link: Link, nodes: readonly Node[]): string {
  return link.nodes.map((end) => endCell(end, nodes)).join(' <-> ');
}

/** One filter in words: `delay 100±5ms`, `loss 5%`, `drop all`, `bpf "icmp"`… */
function describeFilter(type: string, values: unknown[]): string {
  const [first, second] = values;
  switch (type) {
    case 'delay': return Number(second) ? `delay ${first}±${second}ms` : `delay ${first}ms`;
    case 'packet_loss': return `loss ${first}%`;
    case 'corrupt': return `corrupt ${first}%`;
    case 'duplicate': return `duplicate ${first}%`;
    case 'rate': return `rate ${first}kbit/s`;
    case 'frequency_drop': return Number(first) === -1 ? 'drop all' : `drop 1 in ${first}`;
    case 'bpf': return `bpf "${String(first).split('\n').map((line) => line.trim()).filter(Boolean).join('; ')}"`;
    default: return `${type} ${values.join(' ')}`;
  }
}

/** The filters of a link in words, `-` when none is on. */
export function filtersSummary(filters: LinkFilters | undefined): string {
  const parts = Object.entries(filters ?? {})
    .filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]) && entry[1].length > 0)
    .map(([type, values]) => describeFilter(type, values));
  return parts.length ? parts.join(', ') : '-';
}

const yesNo = (value: unknown) => (value ? 'yes' : 'no');

/** The links as a table. */
export function linkTable(links: readonly Link[], nodes: readonly Node[], style: Style): string {
  const columns: Column<Link>[] = [
    { header: 'id', value: (l) => l.link_id },
    { header: 'ends', value: (l) => endsCell(l, nodes) },
    { header: 'filters', value: (l) => filtersSummary(l.filters) },
    { header: 'suspended', value: (l) => yesNo(l.suspend), color: (cell, l, s) => (l.suspend ? s.yellow(cell) : cell) },
    { header: 'capturing', value: (l) => yesNo(l.capturing), color: (cell, l, s) => (l.capturing ? s.green(cell) : cell) },
  ];
  return renderTable(links, columns, style);
}

/** One link as aligned fields. */
export function linkDetails(link: Link, nodes: readonly Node[], style: Style): string {
  return renderFields([
    ['id', link.link_id],
    ['name', linkName(link, nodes)],
    ['ends', endsCell(link, nodes)],
    ['type', String(link.link_type)],
    ['filters', filtersSummary(link.filters)],
    ['suspended', yesNo(link.suspend)],
    ['capturing', link.capturing ? `yes, into ${link.capture_file_path ?? link.capture_file_name ?? '?'}` : 'no'],
  ], style);
}

/** "PC1:0/0-SW1:0/0 (1a2b3c4d-…)": a link named for messages. */
export function linkLabel(link: Link, nodes: readonly Node[]): string {
  return `${linkName(link, nodes)} (${link.link_id})`;
}

/** One row of `link stats`: a link by name, with its counters (none when no end of it is on a started node). */
export interface LinkStatsRow {
  name: string;
  traffic?: LinkTraffic;
  /** Per second since the previous sample (--watch), when known. */
  rates?: LinkRates;
}

const count = (pick: (t: LinkTraffic) => number) => (row: LinkStatsRow) => (row.traffic ? String(pick(row.traffic)) : '-');
const bytes = (pick: (t: LinkTraffic) => number) => (row: LinkStatsRow) => (row.traffic ? formatBytes(pick(row.traffic)) : '-');

/** `12.5` frames/s below 10, whole numbers above. */
function framesRate(perSecond: number): string {
  return perSecond < 10 ? perSecond.toFixed(1) : String(Math.round(perSecond));
}

const frameRate = (pick: (r: LinkRates) => number) => (row: LinkStatsRow) => (row.rates ? framesRate(pick(row.rates)) : '-');
const byteRate = (pick: (r: LinkRates) => number) => (row: LinkStatsRow) => (row.rates ? `${formatBytes(Math.round(pick(row.rates)))}/s` : '-');

const faultColumns: Column<LinkStatsRow>[] = [
  { header: 'drops', value: count((t) => t.drops), color: (cell, row, s) => (row.traffic?.drops ? s.yellow(cell) : cell) },
  { header: 'errors', value: count((t) => t.errors), color: (cell, row, s) => (row.traffic?.errors ? s.red(cell) : cell) },
];

/** The counters of the links as a table (totals since their ports were made). */
export function linkStatsTable(rows: readonly LinkStatsRow[], style: Style): string {
  return renderTable(rows, [
    { header: 'link', value: (row) => row.name },
    { header: 'frames in', value: count((t) => t.framesIn) },
    { header: 'frames out', value: count((t) => t.framesOut) },
    { header: 'bytes in', value: bytes((t) => t.bytesIn) },
    { header: 'bytes out', value: bytes((t) => t.bytesOut) },
    ...faultColumns,
  ], style);
}

/** The rates of the links as a table (`-` until a link has two samples), with drops and errors as totals. */
export function linkRatesTable(rows: readonly LinkStatsRow[], style: Style): string {
  return renderTable(rows, [
    { header: 'link', value: (row) => row.name },
    { header: 'frames/s in', value: frameRate((r) => r.framesInPerSecond) },
    { header: 'frames/s out', value: frameRate((r) => r.framesOutPerSecond) },
    { header: 'bytes/s in', value: byteRate((r) => r.bytesInPerSecond) },
    { header: 'bytes/s out', value: byteRate((r) => r.bytesOutPerSecond) },
    ...faultColumns,
  ], style);
}
