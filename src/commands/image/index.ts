import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { imageDeleteCommand } from './delete.js';
import { imageListCommand } from './list.js';
import { imageUploadCommand } from './upload.js';

/** `emuctl image …`: QEMU disk, kernel and initrd images on a compute. */
export function imageCommand(f: Factory): Command {
  return new Command('image')
    .description('list, upload and delete QEMU images on a compute')
    .addCommand(imageListCommand(f))
    .addCommand(imageUploadCommand(f))
    .addCommand(imageDeleteCommand(f));
}
