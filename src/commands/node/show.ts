import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listLinks } from '../../client/links.js';
import { computeNames, listNodes, NODE_KIND } from '../../client/nodes.js';
import { resolveOne } from '../../client/resolve.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { nodeDetails } from './render.js';

/** Options of `node show`. */
export interface NodeShowOptions {
  node: string;
  project?: string;
}

/** `emuctl node show N [-p P]`. */
export function nodeShowCommand(f: Factory, run = runNodeShow): Command {
  return new Command('show')
    .description("show a node: status, console, ports and what they are linked to")
    .argument('<node>', 'node name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (node: string, flags: { project?: string }, cmd: Command) =>
      run({ node, project: flags.project }, await f.context(cmd)));
}

/** Shows one node (the node JSON as the server gives it with --json). */
export async function runNodeShow(opts: NodeShowOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [nodes, links, computes] = await Promise.all([listNodes(api, project_id), listLinks(api, project_id), computeNames(api)]);
  const node = resolveOne(nodes, opts.node, NODE_KIND);
  ctx.out.result(node, () => nodeDetails(node, ctx.out.style, links, nodes, computes));
}
