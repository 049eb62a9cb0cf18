import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { getProject } from '../../client/projects.js';
import { readInProject } from '../shared/project.js';
import { projectDetails } from './render.js';

/** Options of `project show`. */
export interface ProjectShowOptions {
  /** Name, UUID or UUID prefix; the default project when absent. */
  project?: string;
}

/** `emuctl project show [P]`. */
export function projectShowCommand(f: Factory, run = runProjectShow): Command {
  return new Command('show')
    .description("show a project's details (default: the profile's default project)")
    .argument('[project]', 'project name, UUID or unique UUID prefix')
    .action(async (project: string | undefined, _flags: object, cmd: Command) =>
      run({ project }, await f.context(cmd)));
}

/** Shows one project (GET /v2/projects/{project_id}). */
export async function runProjectShow(opts: ProjectShowOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const project = await readInProject(ctx, opts.project, ({ project_id }) => getProject(api, project_id));
  ctx.out.result(project, () => projectDetails(project, ctx.out.style));
}
