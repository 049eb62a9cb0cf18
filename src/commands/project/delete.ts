import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { deleteProject, findProject } from '../../client/projects.js';
import { setDefaultProject } from './default-project.js';
import { projectLabel } from './render.js';

/** Options of `project delete`. */
export interface ProjectDeleteOptions {
  project: string;
}

/** `emuctl project delete P`. */
export function projectDeleteCommand(f: Factory, run = runProjectDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a project and its files')
    .argument('<project>', 'project name, UUID or unique UUID prefix')
    .action(async (project: string, _flags: object, cmd: Command) => run({ project }, await f.context(cmd)));
}

/** Deletes the project; if it was the profile's default project, the default is cleared. */
export async function runProjectDelete(opts: ProjectDeleteOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const project = await findProject(api, opts.project);
  await deleteProject(api, project.project_id);
  const defaultRef = ctx.profile().defaultProject;
  if (defaultRef === project.project_id || defaultRef === project.name) await setDefaultProject(ctx, undefined);
  ctx.out.result({ deleted: true, project_id: project.project_id, name: project.name });
  ctx.out.success(`Deleted project ${projectLabel(project)}`);
}
