import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError } from '../../cli/errors.js';
import type { Inspection } from '../../lab/inspect.js';
import { filterValue } from '../../lab/filters.js';
import { renderTable, type Column } from '../../render/table.js';
import { labTarget } from './shared.js';

/** Options of `lab inspect`. */
export interface LabInspectOptions {
  lab: string;
  /** Only these nodes and links (names as in the file, links as NODE:A/P-NODE:A/P). */
  only: string[];
}

/** `emuctl lab inspect FILE|NAME [NODE|LINK…] [--json]`. */
export function labInspectCommand(f: Factory, run = runLabInspect): Command {
  return new Command('inspect')
    .description("show a lab's nodes (type, status, compute, console, addresses, management addresses, whether an FRR router runs its frr.conf) and links (filters, suspension, capture)")
    .argument('<lab>', 'lab file, or the name of its project')
    .argument('[names...]', 'only these nodes and links')
    .action(async (lab: string, only: string[], _flags: object, cmd: Command) => run({ lab, only }, await f.context(cmd)));
}

/** Reads the lab's project from the server and shows it. */
export async function runLabInspect(opts: LabInspectOptions, ctx: Context): Promise<void> {
  const { name, spec } = await labTarget(opts.lab, ctx.env);
  const api = await ctx.api();
  const { readLabState } = await import('../../lab/state.js');
  const { inspectLab } = await import('../../lab/inspect.js');
  const state = await readLabState(api, name);
  if (!state.project) throw new NoMatchError(`no lab ${name} on ${api.url} (no project of that name); bring it up with 'emuctl lab up FILE'`);
  // A docker node's address is the one its container sets; only the lab file says it (ip:).
  const fileAddresses = new Map((spec?.nodes ?? []).filter((n) => n.type === 'docker' && n.ip).map((n) => [n.name, n.ip!]));
  // Each FRR router is asked (one exec) whether its running configuration holds what its frr.conf asks.
  const { checkRouterConfigs } = await import('../../lab/router-config.js');
  const configs = await checkRouterConfigs(api, opts.only.length ? state.nodes.filter((n) => opts.only.includes(n.name)) : state.nodes);
  const inspection = only(inspectLab(state, api.url, fileAddresses, configs), opts.only);
  ctx.out.result(inspection, () => human(inspection, ctx));
}

function only(inspection: Inspection, names: string[]): Inspection {
  if (!names.length) return inspection;
  const unknown = names.filter((n) => !inspection.nodes.some((x) => x.name === n) && !inspection.links.some((l) => l.link === n || sameLink(l.link, n)));
  if (unknown.length) throw new NoMatchError(`no node or link ${unknown.join(', ')} in lab ${inspection.lab}`);
  return {
    ...inspection,
    nodes: inspection.nodes.filter((n) => names.includes(n.name)),
    links: inspection.links.filter((l) => names.some((n) => n === l.link || sameLink(l.link, n))),
  };
}

/** `A:0/0-B:0/0` names the same link as `B:0/0-A:0/0`. */
function sameLink(label: string, name: string): boolean {
  const cut = (text: string) => text.split(/-(?=[^-]+:\d+\/\d+$)/).sort().join(' ');
  return cut(label) === cut(name);
}

/** An FRR router's configuration check: frr.conf when it runs it all, else what it lacks. */
const configColumn: Column<Inspection['nodes'][number]> = {
  header: 'config',
  value: (n) => (!n.config ? '-' : n.config.ok ? 'frr.conf' : n.config.error ?? `lacks ${n.config.missing.length}: ${n.config.missing[0]}`),
  color: (cell, n, s) => (!n.config ? cell : n.config.ok ? s.green(cell) : s.red(cell)),
};

function human(inspection: Inspection, ctx: Context): string {
  const { style } = ctx.out;
  const address = (n: Inspection['nodes'][number]) => [n.ip, n.gateway && `gw ${n.gateway}`, n.dns && `dns ${n.dns}`].filter(Boolean).join(' ') || '-';
  const filters = (f: Record<string, (number | string)[]>) => Object.entries(f).map(([type, values]) => `${type} ${filterValue(type, values)}`).join(', ') || '-';
  const parts = [
    `${style.bold(`Lab ${inspection.lab}`)} (project ${inspection.project_id})\n`,
    renderTable(inspection.nodes, [
      { header: 'node', value: (n) => n.name },
      { header: 'type', value: (n) => (n.image ? `${n.type} ${n.image}` : n.type) },
      { header: 'status', value: (n) => n.status, color: (cell, n, s) => (n.status === 'started' ? s.green(cell) : s.yellow(cell)) },
      { header: 'compute', value: (n) => n.compute },
      { header: 'console', value: (n) => n.console ?? '-' },
      { header: 'addresses', value: address },
      ...(inspection.nodes.some((n) => n.mgmt_ipv4) ? [{ header: 'mgmt', value: (n: Inspection['nodes'][number]) => [n.mgmt_ipv4, n.mgmt_ipv6].filter(Boolean).join(' ') || '-' }] : []),
      // Shown when the lab has FRR routers, as the management column is when it has a management network.
      ...(inspection.nodes.some((n) => n.config) ? [configColumn] : []),
    ], style),
  ];
  if (inspection.links.length) {
    parts.push('\n', renderTable(inspection.links, [
      { header: 'link', value: (l) => l.link },
      { header: 'filters', value: (l) => filters(l.filters) },
      { header: 'suspended', value: (l) => (l.suspended ? 'yes' : 'no') },
      { header: 'capture', value: (l) => (l.capturing ? l.capture_file ?? 'yes' : '-') },
    ], style));
  }
  return parts.join('');
}
