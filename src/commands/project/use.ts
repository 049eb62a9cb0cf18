import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findProject } from '../../client/projects.js';
import { setDefaultProject } from './default-project.js';
import { projectLabel } from './render.js';

/** Options of `project use`. */
export interface ProjectUseOptions {
  project: string;
}

/** `emuctl project use P`. */
export function projectUseCommand(f: Factory, run = runProjectUse): Command {
  return new Command('use')
    .description("make a project the profile's default project (used when a command needs one)")
    .argument('<project>', 'project name, UUID or unique UUID prefix')
    .action(async (project: string, _flags: object, cmd: Command) => run({ project }, await f.context(cmd)));
}

/** Checks that the project exists, then saves its UUID and name as the active profile's default project. */
export async function runProjectUse(opts: ProjectUseOptions, ctx: Context): Promise<void> {
  const project = await findProject(await ctx.api(), opts.project);
  const profile = await setDefaultProject(ctx, project);
  ctx.out.result({ profile, project_id: project.project_id, name: project.name });
  ctx.out.success(`Profile ${profile} now uses project ${projectLabel(project)}`);
}
