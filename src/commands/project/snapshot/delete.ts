import { Command } from 'commander';
import type { Context, Factory } from '../../../cli/context.js';
import { deleteSnapshot, findSnapshot } from '../../../client/snapshots.js';
import { projectOption, resolveProject } from '../../shared/project.js';
import { snapshotLabel } from './render.js';

/** Options of `project snapshot delete`. */
export interface SnapshotDeleteOptions {
  snapshot: string;
  project?: string;
}

/** `emuctl project snapshot delete S [-p P]`. */
export function snapshotDeleteCommand(f: Factory, run = runSnapshotDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a snapshot')
    .argument('<snapshot>', 'snapshot name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (snapshot: string, flags: { project?: string }, cmd: Command) => run({ snapshot, project: flags.project }, await f.context(cmd)));
}

/** Deletes the snapshot (DELETE …/snapshots/{snapshot_id}). */
export async function runSnapshotDelete(opts: SnapshotDeleteOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const snapshot = await findSnapshot(api, project.project_id, opts.snapshot);
  await deleteSnapshot(api, project.project_id, snapshot.snapshot_id);
  ctx.out.result({ deleted: true, snapshot_id: snapshot.snapshot_id, name: snapshot.name });
  ctx.out.success(`Deleted snapshot ${snapshotLabel(snapshot)} of project ${project.name}`);
}
