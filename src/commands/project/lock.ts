import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { setProjectLock } from '../../client/projects.js';
import { resolveProject } from '../shared/project.js';
import { projectLabel } from './render.js';

/** Options of `project lock` and `project unlock`. */
export interface ProjectLockOptions {
  project?: string;
  locked: boolean;
}

/** `emuctl project lock [P]` or `emuctl project unlock [P]` (GNS3 3.x). */
export function projectLockCommand(f: Factory, locked: boolean, run = runProjectLock): Command {
  return new Command(locked ? 'lock' : 'unlock')
    .description(locked ? 'lock a project on a GNS3 3.x server: its nodes and drawings cannot be moved or deleted' : 'unlock a project locked with "project lock" (GNS3 3.x)')
    .argument('[project]', 'project name, UUID or unique UUID prefix')
    .action(async (project: string | undefined, _flags: object, cmd: Command) =>
      run({ project, locked }, await f.context(cmd)));
}

/** Locks or unlocks the project (POST /v3/projects/{project_id}/lock|unlock). */
export async function runProjectLock(opts: ProjectLockOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  await setProjectLock(await ctx.api(), project.project_id, opts.locked);
  ctx.out.result({ project_id: project.project_id, name: project.name, locked: opts.locked });
  ctx.out.success(`${opts.locked ? 'Locked' : 'Unlocked'} project ${projectLabel(project)}`);
}
