import { Command } from 'commander';
import type { Factory } from '../../../cli/context.js';
import { snapshotCreateCommand } from './create.js';
import { snapshotDeleteCommand } from './delete.js';
import { snapshotListCommand } from './list.js';
import { snapshotRestoreCommand } from './restore.js';

/** `emuctl project snapshot …`: a project's snapshots. */
export function snapshotCommand(f: Factory): Command {
  return new Command('snapshot')
    .description("take, list, restore and delete a project's snapshots")
    .addCommand(snapshotCreateCommand(f))
    .addCommand(snapshotListCommand(f))
    .addCommand(snapshotRestoreCommand(f))
    .addCommand(snapshotDeleteCommand(f));
}
