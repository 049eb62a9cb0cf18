import { Command } from 'commander';
import { stat } from 'node:fs/promises';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { importDockerImages } from '../../client/images.js';
import { formatBytes } from '../../render/progress.js';
import { streamServer } from '../shared/streams.js';
import { imageComputeId, imageComputeOption, withProgress } from './shared.js';

/** Options of `image import`. */
export interface ImageImportOptions {
  /** A `docker save` archive (tar). */
  file: string;
  compute?: string;
}

/** `emuctl image import FILE.tar [-c C]`. */
export function imageImportCommand(f: Factory, run = runImageImport): Command {
  return new Command('import')
    .description('load docker images from a docker save archive into the Docker engine of a compute (works offline)')
    .argument('<file>', 'archive written by docker save (tar)')
    .addOption(imageComputeOption())
    .action(async (file: string, flags: { compute?: string }, cmd: Command) => run({ file, compute: flags.compute }, await f.context(cmd)));
}

/** Streams the archive to the compute (docker load there), with progress, and names the images it held. */
export async function runImageImport(opts: ImageImportOptions, ctx: Context): Promise<void> {
  const size = await stat(opts.file).then((s) => {
    if (!s.isFile()) throw new OperationError(`cannot read ${opts.file}: not a regular file`);
    return s.size;
  }, (err: NodeJS.ErrnoException) => {
    throw new OperationError(`cannot read ${opts.file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const computeId = await imageComputeId(ctx, opts.compute);
  const started = Date.now();
  const images = await withProgress(ctx, `Importing ${opts.file}`, (progress) => importDockerImages(streamServer(ctx), computeId, opts.file, progress));
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  ctx.out.result({ compute_id: computeId, images });
  ctx.out.success(`Imported ${images.length ? images.join(', ') : 'no tagged image'} into compute ${computeId}: ${formatBytes(size)} in ${seconds.toFixed(1)} s`);
}
