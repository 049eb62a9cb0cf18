import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { computeNamesFor, listNodes } from '../../client/nodes.js';
import { projectOption, readInProject } from '../shared/project.js';
import { nodeTable } from './render.js';
import { sortedByName } from '../../render/sort.js';

/** Options of `node list`. */
export interface NodeListOptions {
  project?: string;
}

/** `emuctl node list [-p P]`. */
export function nodeListCommand(f: Factory, run = runNodeList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the nodes of a project')
    .addOption(projectOption())
    .action(async (flags: { project?: string }, cmd: Command) => run({ project: flags.project }, await f.context(cmd)));
}

/**
 * Lists the nodes: a table sorted by name, or the server's JSON array as it came with --json.
 * In the default project of a profile that holds its UUID, that is one request.
 */
export async function runNodeList(opts: NodeListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const { project, nodes } = await readInProject(ctx, opts.project, async (project) => ({ project, nodes: await listNodes(api, project.project_id) }));
  const computes = ctx.out.json ? new Map<string, string>() : await computeNamesFor(api, nodes);
  const byName = sortedByName(nodes, (n) => n.name);
  ctx.out.result(nodes, () => (byName.length ? nodeTable(byName, ctx.out.style, computes) : `no nodes in project ${project.name}\n`));
}
