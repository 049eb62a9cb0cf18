import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { closeProject } from '../../client/projects.js';
import { resolveProject } from '../shared/project.js';
import { projectLabel } from './render.js';

/** Options of `project close`. */
export interface ProjectCloseOptions {
  project?: string;
}

/** `emuctl project close [P]`. */
export function projectCloseCommand(f: Factory, run = runProjectClose): Command {
  return new Command('close')
    .description("close a project (default: the profile's default project)")
    .argument('[project]', 'project name, UUID or unique UUID prefix')
    .action(async (project: string | undefined, _flags: object, cmd: Command) =>
      run({ project }, await f.context(cmd)));
}

/** Closes the project (POST /v2/projects/{project_id}/close). */
export async function runProjectClose(opts: ProjectCloseOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const project = await closeProject(await ctx.api(), project_id);
  ctx.out.result(project);
  ctx.out.success(`Closed project ${projectLabel(project)}`);
}
