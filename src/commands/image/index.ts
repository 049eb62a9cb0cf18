import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { imageBuildCommand } from './build.js';
import { imageDeleteCommand } from './delete.js';
import { imageImportCommand } from './import.js';
import { imageListCommand } from './list.js';
import { imageUploadCommand } from './upload.js';

/** `emuctl image …`: QEMU disk, kernel and initrd images, and docker images, on a compute. */
export function imageCommand(f: Factory): Command {
  return new Command('image')
    .description('list images on a compute; upload and delete QEMU images, import docker images, build the offline frr and host images')
    .addCommand(imageListCommand(f))
    .addCommand(imageUploadCommand(f))
    .addCommand(imageImportCommand(f))
    .addCommand(imageBuildCommand(f))
    .addCommand(imageDeleteCommand(f));
}
