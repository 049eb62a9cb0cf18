import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { createLink, parseEndArgument, resolveEnd } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { endsCell } from './render.js';

/** Options of `link create`. */
export interface LinkCreateOptions {
  /** `NODE:ADAPTER/PORT`, `NODE:PORT` (adapter 0) or `NODE:PORT-NAME`. */
  a: string;
  b: string;
  project?: string;
}

/** `emuctl link create A:ADAPTER/PORT B:ADAPTER/PORT [-p P]`. */
export function linkCreateCommand(f: Factory, run = runLinkCreate): Command {
  return new Command('create')
    .description('link two node ports (NODE:ADAPTER/PORT, NODE:PORT or NODE:PORT-NAME)')
    .argument('<a>', 'first end, e.g. PC1:0/0')
    .argument('<b>', 'second end, e.g. SW1:0/0, SW1:0 or SW1:Ethernet0')
    .addOption(projectOption())
    .action(async (a: string, b: string, flags: { project?: string }, cmd: Command) =>
      run({ a, b, project: flags.project }, await f.context(cmd)));
}

/** Creates the link (POST /v2/projects/{project_id}/links) and reports it. */
export async function runLinkCreate(opts: LinkCreateOptions, ctx: Context): Promise<void> {
  const specs = [parseEndArgument(opts.a), parseEndArgument(opts.b)];
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const nodes = await listNodes(api, project_id);
  const ends = specs.map((spec) => resolveEnd(nodes, spec));
  const link = await createLink(api, project_id, {
    nodes: ends.map((end) => ({ node_id: end.node.node_id, adapter_number: end.adapter_number, port_number: end.port_number })),
  });
  ctx.out.result(link);
  ctx.out.success(`Created link ${endsCell(link, nodes)} (${link.link_id})`);
}
