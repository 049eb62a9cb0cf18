import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { createProject } from '../../client/projects.js';
import { projectLabel } from './render.js';
import { setDefaultProject } from './default-project.js';

/** Options of `project create`. */
export interface ProjectCreateOptions {
  name: string;
  /** Also make it the profile's default project. */
  use: boolean;
}

/** `emuctl project create NAME [--use]`. */
export function projectCreateCommand(f: Factory, run = runProjectCreate): Command {
  return new Command('create')
    .description('create a project')
    .argument('<name>', 'name of the new project')
    .option('--use', "also make it the profile's default project")
    .action(async (name: string, flags: { use?: boolean }, cmd: Command) =>
      run({ name, use: flags.use === true }, await f.context(cmd)));
}

/** Creates the project (POST /v2/projects) and reports it. */
export async function runProjectCreate(opts: ProjectCreateOptions, ctx: Context): Promise<void> {
  // Not auto_close: GNS3 (2.2 and 3.x) closes such a project, stopping its nodes, 5 s after its last
  // notification listener leaves, and `emuctl events` is one.
  const project = await createProject(await ctx.api(), { name: opts.name, auto_close: false });
  if (opts.use) await setDefaultProject(ctx, project);
  ctx.out.result(project);
  ctx.out.success(`Created project ${projectLabel(project)}${opts.use ? ', now the default project' : ''}`);
}
