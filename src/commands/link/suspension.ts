import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findLink, listLinks, updateLink } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { linkLabel } from './render.js';
import { LINK_ARGUMENT_HELP } from './show.js';

/** Options of `link suspend` and `link resume`. */
export interface LinkSuspensionOptions {
  link: string;
  project?: string;
}

/** The builder `link suspend` and `link resume` share. */
export function linkSuspensionCommand(verb: 'suspend' | 'resume', description: string, f: Factory,
  run: (opts: LinkSuspensionOptions, ctx: Context) => Promise<void>): Command {
  return new Command(verb)
    .description(description)
    .argument('<link>', LINK_ARGUMENT_HELP)
    .addOption(projectOption())
    .action(async (link: string, flags: { project?: string }, cmd: Command) =>
      run({ link, project: flags.project }, await f.context(cmd)));
}

/** Sets the link's `suspend` flag (PUT /v2/projects/{project_id}/links/{link_id}) and reports the link. */
export async function runLinkSuspension(suspend: boolean, opts: LinkSuspensionOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project_id), listNodes(api, project_id)]);
  const link = await updateLink(api, project_id, findLink(links, nodes, opts.link).link_id, { suspend });
  ctx.out.result(link);
  ctx.out.success(suspend ? `Suspended link ${linkLabel(link, nodes)}: it drops every frame` : `Resumed link ${linkLabel(link, nodes)}`);
}
