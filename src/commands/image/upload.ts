import { Command, Option } from 'commander';
import { basename } from 'node:path';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { fileMd5, listImages, uploadImage } from '../../client/images.js';
import { formatBytes } from '../../render/progress.js';
import { streamServer } from '../shared/streams.js';
import { imageComputeId, imageComputeOption, withProgress } from './shared.js';

/** Options of `image upload`. */
export interface ImageUploadOptions {
  file: string;
  /** Name on the compute (default: the file's base name). */
  name?: string;
  compute?: string;
  /** Upload even when the compute has an image of that name with the same md5. */
  force?: boolean;
}

/** `emuctl image upload FILE [--name N] [-c C] [--force]`. */
export function imageUploadCommand(f: Factory, run = runImageUpload): Command {
  return new Command('upload')
    .description('upload a QEMU image to a compute, with progress, checked by md5')
    .argument('<file>', 'local image file (qcow2, raw, kernel, initrd, ISO, …)')
    .option('-n, --name <name>', "name on the compute (default: the file's name)")
    .addOption(imageComputeOption())
    .addOption(new Option('--force', 'upload even when the compute already has the same file'))
    .action(async (file: string, flags: { name?: string; compute?: string; force?: boolean }, cmd: Command) =>
      run({ file, name: flags.name, compute: flags.compute, force: flags.force }, await f.context(cmd)));
}

/**
 * Uploads the file unless the compute already holds the same bytes under that name (same md5),
 * then checks the md5 the compute computed against the local one.
 */
export async function runImageUpload(opts: ImageUploadOptions, ctx: Context): Promise<void> {
  const name = opts.name ?? basename(opts.file);
  const computeId = await imageComputeId(ctx, opts.compute);
  const api = await ctx.api();
  const md5 = await ctx.out.spin(`md5 of ${opts.file}`, () => fileMd5(opts.file).catch((err: NodeJS.ErrnoException) => {
    throw new OperationError(`cannot read ${opts.file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }));
  const existing = (await listImages(api, computeId)).find((i) => i.filename === name);
  if (existing?.md5sum === md5 && !opts.force) {
    ctx.out.result(existing);
    ctx.out.success(`Image ${name} is already on compute ${computeId} (md5 ${md5}): nothing to upload`);
    return;
  }
  const started = Date.now();
  await withProgress(ctx, `Uploading ${name}`, (progress) => uploadImage(streamServer(ctx), computeId, opts.file, name, progress));
  const stored = (await listImages(api, computeId)).find((i) => i.filename === name);
  if (!stored) throw new OperationError(`compute ${computeId} does not list ${name} after the upload`);
  if (stored.md5sum !== md5) throw new OperationError(`md5 mismatch after the upload of ${name}: local ${md5}, compute ${stored.md5sum}`);
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  ctx.out.result(stored);
  ctx.out.success(`Uploaded ${name} to compute ${computeId}: ${formatBytes(stored.filesize)} in ${seconds.toFixed(1)} s (${formatBytes(stored.filesize / seconds)}/s), md5 ${md5} checked`);
}
