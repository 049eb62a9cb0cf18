import { writeFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError, UsageError } from '../../cli/errors.js';
import { labTarget } from './shared.js';

export const GRAPH_FORMATS = ['ascii', 'dot', 'svg', 'mermaid'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

/** Options of `lab graph`. */
export interface LabGraphOptions {
  lab: string;
  format: GraphFormat;
  /** Write here instead of stdout. */
  output?: string;
  /** Show each node's management addresses (read from the server, even when a file is named). */
  mgmt?: boolean;
}

/** `emuctl lab graph FILE|NAME [--format ascii|dot|svg|mermaid] [-o FILE]`. */
export function labGraphCommand(f: Factory, run = runLabGraph): Command {
  return new Command('graph')
    .description('draw a lab: a file as written, or a project as the server has it (ASCII, Graphviz DOT or SVG, Mermaid)')
    .argument('<lab>', 'lab file, or the name of a project on the server')
    .addOption(new Option('-f, --format <format>', 'ascii (terminal), dot, svg (needs Graphviz) or mermaid').choices(GRAPH_FORMATS).default('ascii'))
    .option('-o, --output <file>', 'write the picture to this file')
    .option('--mgmt', "show each node's management addresses (drawn from the server's project, also when a file is named)")
    .action(async (lab: string, flags: { format: GraphFormat; output?: string; mgmt?: boolean }, cmd: Command) =>
      run({ lab, format: flags.format, output: flags.output, ...(flags.mgmt ? { mgmt: true } : {}) }, await f.context(cmd)));
}

/** Draws the lab: from the file when one is named (no server needed), else from the server's project. */
export async function runLabGraph(opts: LabGraphOptions, ctx: Context): Promise<void> {
  if (ctx.out.json) throw new UsageError('lab graph draws pictures: use --format dot or mermaid for text, lab inspect --json for data');
  const { name, spec } = await labTarget(opts.lab, ctx.env);
  const graph = await import('../../lab/graph.js');
  let topology;
  if (spec && !opts.mgmt) {
    topology = graph.topologyOfFile(spec);
  } else {
    const { readLabState } = await import('../../lab/state.js');
    const api = await ctx.api();
    const state = await readLabState(api, name);
    if (!state.project) throw new NoMatchError(`no lab ${name} on ${api.url} (no project of that name)`);
    topology = graph.topologyOfState(state, { mgmt: opts.mgmt === true });
  }
  let text: string;
  if (opts.format === 'ascii') text = graph.renderAscii(topology);
  else if (opts.format === 'mermaid') text = graph.renderMermaid(topology);
  else if (opts.format === 'dot') text = graph.renderDot(topology);
  else text = await (await import('../../lab/graph-svg.js')).dotToSvg(graph.renderDot(topology), ctx.env);
  if (opts.output === undefined) {
    ctx.out.writeOut(text);
    return;
  }
  await writeFile(opts.output, text);
  ctx.out.success(`Wrote ${opts.format} picture of lab ${topology.name} to ${opts.output}`);
}
