import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { openProject } from '../../client/projects.js';
import { resolveProject } from '../shared/project.js';
import { projectLabel } from './render.js';

/** Options of `project open`. */
export interface ProjectOpenOptions {
  project?: string;
}

/** `emuctl project open [P]`. */
export function projectOpenCommand(f: Factory, run = runProjectOpen): Command {
  return new Command('open')
    .description("open a project (default: the profile's default project)")
    .argument('[project]', 'project name, UUID or unique UUID prefix')
    .action(async (project: string | undefined, _flags: object, cmd: Command) =>
      run({ project }, await f.context(cmd)));
}

/** Opens the project (POST /v2/projects/{project_id}/open). */
export async function runProjectOpen(opts: ProjectOpenOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const project = await openProject(await ctx.api(), project_id);
  ctx.out.result(project);
  ctx.out.success(`Opened project ${projectLabel(project)}`);
}
