import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findLink, listLinks } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { linkDetails } from './render.js';

/** Options of `link show`. */
export interface LinkShowOptions {
  link: string;
  project?: string;
}

/** The `link` argument every link verb takes. */
export const LINK_ARGUMENT_HELP = 'link UUID, unique UUID prefix, or its ends NODE:PORT-NODE:PORT';

/** `emuctl link show L [-p P]`. */
export function linkShowCommand(f: Factory, run = runLinkShow): Command {
  return new Command('show')
    .description("show a link: its ends, filters, suspension and capture")
    .argument('<link>', LINK_ARGUMENT_HELP)
    .addOption(projectOption())
    .action(async (link: string, flags: { project?: string }, cmd: Command) =>
      run({ link, project: flags.project }, await f.context(cmd)));
}

/** Shows one link (the link JSON as the server gives it with --json). */
export async function runLinkShow(opts: LinkShowOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project_id), listNodes(api, project_id)]);
  const link = findLink(links, nodes, opts.link);
  ctx.out.result(link, () => linkDetails(link, nodes, ctx.out.style));
}
