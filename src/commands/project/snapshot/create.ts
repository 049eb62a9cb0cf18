import { Command } from 'commander';
import type { Context, Factory } from '../../../cli/context.js';
import { createSnapshot } from '../../../client/snapshots.js';
import { projectOption, resolveProject } from '../../shared/project.js';
import { snapshotLabel } from './render.js';

/** Options of `project snapshot create`. */
export interface SnapshotCreateOptions {
  name: string;
  project?: string;
}

/** `emuctl project snapshot create NAME [-p P]`. */
export function snapshotCreateCommand(f: Factory, run = runSnapshotCreate): Command {
  return new Command('create')
    .description("take a snapshot of a project (its nodes must be stopped, as GNS3 requires)")
    .argument('<name>', 'name of the snapshot')
    .addOption(projectOption())
    .action(async (name: string, flags: { project?: string }, cmd: Command) => run({ name, project: flags.project }, await f.context(cmd)));
}

/** Takes the snapshot (POST /v2/projects/{project_id}/snapshots). */
export async function runSnapshotCreate(opts: SnapshotCreateOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const snapshot = await ctx.out.spin(`Taking snapshot ${opts.name}`, () => createSnapshot(api, project.project_id, opts.name));
  ctx.out.result(snapshot);
  ctx.out.success(`Took snapshot ${snapshotLabel(snapshot)} of project ${project.name}`);
}
