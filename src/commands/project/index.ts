import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { projectCloseCommand } from './close.js';
import { projectCreateCommand } from './create.js';
import { projectDeleteCommand } from './delete.js';
import { projectDuplicateCommand } from './duplicate.js';
import { projectExportCommand } from './export.js';
import { projectImportCommand } from './import.js';
import { projectListCommand } from './list.js';
import { projectLockCommand } from './lock.js';
import { projectOpenCommand } from './open.js';
import { projectShowCommand } from './show.js';
import { snapshotCommand } from './snapshot/index.js';
import { projectUseCommand } from './use.js';

/** `emuctl project …`: projects on the server. */
export function projectCommand(f: Factory): Command {
  return new Command('project')
    .description('list, create, show, delete, open, close and choose projects; export, import, duplicate and snapshot them; lock and unlock them (GNS3 3.x)')
    .addCommand(projectListCommand(f))
    .addCommand(projectCreateCommand(f))
    .addCommand(projectShowCommand(f))
    .addCommand(projectDeleteCommand(f))
    .addCommand(projectOpenCommand(f))
    .addCommand(projectCloseCommand(f))
    .addCommand(projectUseCommand(f))
    .addCommand(projectExportCommand(f))
    .addCommand(projectImportCommand(f))
    .addCommand(projectDuplicateCommand(f))
    .addCommand(snapshotCommand(f))
    .addCommand(projectLockCommand(f, true))
    .addCommand(projectLockCommand(f, false));
}
