import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { linkName, listLinks } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { linkTable } from './render.js';
import { sortedByName } from '../../render/sort.js';

/** Options of `link list`. */
export interface LinkListOptions {
  project?: string;
}

/** `emuctl link list [-p P]`. */
export function linkListCommand(f: Factory, run = runLinkList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the links of a project with their filters, suspension and capture')
    .addOption(projectOption())
    .action(async (flags: { project?: string }, cmd: Command) => run({ project: flags.project }, await f.context(cmd)));
}

/** Lists the links: a table sorted by their ends, or the server's JSON array as it came with --json. */
export async function runLinkList(opts: LinkListOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project.project_id), listNodes(api, project.project_id)]);
  const sorted = sortedByName(links, (link) => linkName(link, nodes));
  ctx.out.result(links, () => (sorted.length ? linkTable(sorted, nodes, ctx.out.style) : `no links in project ${project.name}\n`));
}
