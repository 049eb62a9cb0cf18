import { Command } from 'commander';
import type { Context, Factory } from '../../../cli/context.js';
import { findSnapshot, restoreSnapshot } from '../../../client/snapshots.js';
import { projectOption, resolveProject } from '../../shared/project.js';
import { snapshotLabel } from './render.js';

/** Options of `project snapshot restore`. */
export interface SnapshotRestoreOptions {
  snapshot: string;
  project?: string;
}

/** `emuctl project snapshot restore S [-p P]`. */
export function snapshotRestoreCommand(f: Factory, run = runSnapshotRestore): Command {
  return new Command('restore')
    .description('put a project back as a snapshot has it (its nodes stopped)')
    .argument('<snapshot>', 'snapshot name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (snapshot: string, flags: { project?: string }, cmd: Command) => run({ snapshot, project: flags.project }, await f.context(cmd)));
}

/** Restores the snapshot (POST …/snapshots/{snapshot_id}/restore). */
export async function runSnapshotRestore(opts: SnapshotRestoreOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const snapshot = await findSnapshot(api, project.project_id, opts.snapshot);
  const restored = await ctx.out.spin(`Restoring ${snapshot.name}`, () => restoreSnapshot(api, project.project_id, snapshot.snapshot_id));
  ctx.out.result(restored);
  ctx.out.success(`Restored project ${project.name} to snapshot ${snapshotLabel(snapshot)}; its nodes are stopped`);
}
