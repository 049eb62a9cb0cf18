import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { duplicateProject, findProject } from '../../client/projects.js';
import { projectDetails, projectLabel } from './render.js';

/** Options of `project duplicate`. */
export interface ProjectDuplicateOptions {
  project: string;
  /** Name of the copy; the project's own name when absent (a taken name gets `-1`, `-2`…). */
  name?: string;
  resetMacAddresses: boolean;
}

/** `emuctl project duplicate P [--name N] [--reset-mac-addresses]`. */
export function projectDuplicateCommand(f: Factory, run = runProjectDuplicate): Command {
  return new Command('duplicate')
    .description('copy a project (nodes, links, files) under a new name')
    .argument('<project>', 'project name, UUID or unique UUID prefix')
    .option('-n, --name <name>', 'name of the copy')
    .option('--reset-mac-addresses', 'give the copy new MAC addresses')
    .action(async (project: string, flags: { name?: string; resetMacAddresses?: boolean }, cmd: Command) =>
      run({ project, name: flags.name, resetMacAddresses: flags.resetMacAddresses === true }, await f.context(cmd)));
}

/** Duplicates the project (POST /v2/projects/{project_id}/duplicate; GNS3 2.2 requires a name) and reports the copy. */
export async function runProjectDuplicate(opts: ProjectDuplicateOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const project = await findProject(api, opts.project);
  const copy = await ctx.out.spin(`Duplicating ${project.name}`, () =>
    duplicateProject(api, project.project_id, { name: opts.name ?? project.name, reset_mac_addresses: opts.resetMacAddresses }));
  ctx.out.result(copy, () => projectDetails(copy, ctx.out.style));
  ctx.out.success(`Duplicated project ${projectLabel(project)} as ${projectLabel(copy)}`);
}
