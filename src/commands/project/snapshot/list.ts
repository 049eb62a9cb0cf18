import { Command } from 'commander';
import type { Context, Factory } from '../../../cli/context.js';
import { listSnapshots } from '../../../client/snapshots.js';
import { projectOption, resolveProject } from '../../shared/project.js';
import { snapshotTable } from './render.js';

/** Options of `project snapshot list`. */
export interface SnapshotListOptions {
  project?: string;
}

/** `emuctl project snapshot list [-p P]`. */
export function snapshotListCommand(f: Factory, run = runSnapshotList): Command {
  return new Command('list')
    .alias('ls')
    .description("list a project's snapshots")
    .addOption(projectOption())
    .action(async (flags: { project?: string }, cmd: Command) => run({ project: flags.project }, await f.context(cmd)));
}

/** Lists the snapshots (GET /v2/projects/{project_id}/snapshots). */
export async function runSnapshotList(opts: SnapshotListOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const snapshots = await listSnapshots(await ctx.api(), project.project_id);
  ctx.out.result(snapshots, () => (snapshots.length ? snapshotTable(snapshots, ctx.out.style) : `no snapshots of project ${project.name}\n`));
}
