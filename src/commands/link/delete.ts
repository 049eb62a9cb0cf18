import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { deleteLink, findLink, linkName, listLinks } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { linkLabel } from './render.js';
import { LINK_ARGUMENT_HELP } from './show.js';

/** Options of `link delete`. */
export interface LinkDeleteOptions {
  link: string;
  project?: string;
}

/** `emuctl link delete L [-p P]`. */
export function linkDeleteCommand(f: Factory, run = runLinkDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a link (both ports are free again)')
    .argument('<link>', LINK_ARGUMENT_HELP)
    .addOption(projectOption())
    .action(async (link: string, flags: { project?: string }, cmd: Command) =>
      run({ link, project: flags.project }, await f.context(cmd)));
}

/** Deletes the link (DELETE /v2/projects/{project_id}/links/{link_id}). */
export async function runLinkDelete(opts: LinkDeleteOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project_id), listNodes(api, project_id)]);
  const link = findLink(links, nodes, opts.link);
  await deleteLink(api, project_id, link.link_id);
  ctx.out.result({ deleted: true, link_id: link.link_id, name: linkName(link, nodes) });
  ctx.out.success(`Deleted link ${linkLabel(link, nodes)}`);
}
