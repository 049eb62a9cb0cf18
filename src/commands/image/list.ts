import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listImages, type ImageInfo } from '../../client/images.js';
import { formatBytes } from '../../render/progress.js';
import { renderTable, type Column } from '../../render/table.js';
import { imageComputeId, imageComputeOption } from './shared.js';

/** Options of `image list`. */
export interface ImageListOptions {
  compute?: string;
}

/** `emuctl image list [-c C]`. */
export function imageListCommand(f: Factory, run = runImageList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the QEMU images of a compute with their sizes and md5 sums')
    .addOption(imageComputeOption())
    .action(async (flags: { compute?: string }, cmd: Command) => run({ compute: flags.compute }, await f.context(cmd)));
}

/** Lists the images: a table, or the GNS3 image objects with --json. */
export async function runImageList(opts: ImageListOptions, ctx: Context): Promise<void> {
  const computeId = await imageComputeId(ctx, opts.compute);
  const images = await listImages(await ctx.api(), computeId);
  const columns: Column<ImageInfo>[] = [
    { header: 'name', value: (i) => i.filename },
    { header: 'size', value: (i) => formatBytes(i.filesize) },
    { header: 'md5', value: (i) => i.md5sum },
  ];
  ctx.out.result(images, () => (images.length ? renderTable(images, columns, ctx.out.style) : `no images on compute ${computeId}\n`));
}
