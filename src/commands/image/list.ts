import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listDockerImages, listImages } from '../../client/images.js';
import { formatBytes } from '../../render/progress.js';
import { renderTable, type Column } from '../../render/table.js';
import { imageComputeId, imageComputeOption } from './shared.js';

/** The kinds of image a compute lists. */
export const IMAGE_KINDS = ['qemu', 'docker'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

/** Options of `image list`. */
export interface ImageListOptions {
  compute?: string;
  /** Only this kind (default both). */
  kind?: ImageKind;
}

/** One row of `image list`: a QEMU image (GNS3's object) or a docker image, with its kind. */
export type ListedImage = { kind: ImageKind; filename?: string; path?: string; filesize?: number; md5sum?: string; image?: string };

/** `emuctl image list [-c C] [--kind qemu|docker]`. */
export function imageListCommand(f: Factory, run = runImageList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the QEMU images (with sizes and md5 sums) and docker images of a compute')
    .addOption(imageComputeOption())
    .addOption(new Option('-k, --kind <kind>', 'only qemu or only docker images').choices(IMAGE_KINDS))
    .action(async (flags: { compute?: string; kind?: ImageKind }, cmd: Command) => run({ compute: flags.compute, kind: flags.kind }, await f.context(cmd)));
}

/** Lists the images: a table with a kind column, or with --json the GNS3 image objects with `kind` added. */
export async function runImageList(opts: ImageListOptions, ctx: Context): Promise<void> {
  const computeId = await imageComputeId(ctx, opts.compute);
  const api = await ctx.api();
  const wants = (kind: ImageKind) => opts.kind === undefined || opts.kind === kind;
  const [qemu, docker] = await Promise.all([
    wants('qemu') ? listImages(api, computeId) : [],
    wants('docker') ? listDockerImages(api, computeId) : [],
  ]);
  const images: ListedImage[] = [...qemu.map((i) => ({ kind: 'qemu' as const, ...i })), ...docker.map((i) => ({ kind: 'docker' as const, ...i }))];
  const columns: Column<ListedImage>[] = [
    { header: 'kind', value: (i) => i.kind },
    { header: 'name', value: (i) => i.filename ?? i.image ?? '' },
    { header: 'size', value: (i) => (i.filesize === undefined ? '-' : formatBytes(i.filesize)) },
    { header: 'md5', value: (i) => i.md5sum ?? '-' },
  ];
  ctx.out.result(images, () => (images.length ? renderTable(images, columns, ctx.out.style) : `no ${opts.kind ?? ''}${opts.kind ? ' ' : ''}images on compute ${computeId}\n`));
}
