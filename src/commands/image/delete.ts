import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { deleteImage } from '../../client/images.js';
import { imageComputeId, imageComputeOption } from './shared.js';

/** Options of `image delete`. */
export interface ImageDeleteOptions {
  name: string;
  compute?: string;
}

/** `emuctl image delete NAME [-c C]`. */
export function imageDeleteCommand(f: Factory, run = runImageDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a QEMU image from a compute')
    .argument('<name>', 'image name, as image list shows it')
    .addOption(imageComputeOption())
    .action(async (name: string, flags: { compute?: string }, cmd: Command) => run({ name, compute: flags.compute }, await f.context(cmd)));
}

/** Deletes the image (the nodes that use it fail to start until it is back). */
export async function runImageDelete(opts: ImageDeleteOptions, ctx: Context): Promise<void> {
  const computeId = await imageComputeId(ctx, opts.compute);
  await deleteImage(await ctx.api(), computeId, opts.name);
  ctx.out.success(`Deleted image ${opts.name} from compute ${computeId}`);
}
