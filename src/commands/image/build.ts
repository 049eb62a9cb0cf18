import { Command, Option } from 'commander';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UsageError } from '../../cli/errors.js';
import { OFFLINE_IMAGE_NAMES, type OfflineImageName } from '../../offline-images/names.js';
import { imageComputeOption, imageComputeId } from './shared.js';

/** Options of `image build`. */
export interface ImageBuildOptions {
  names: OfflineImageName[];
  /** One more tag (only with one image). */
  tag?: string;
  /** A remote compute to load the images into after the local build (default: the local Docker). */
  compute?: string;
}

/** `emuctl image build frr|host|ssh… [--tag T] [-c C]`. */
export function imageBuildCommand(f: Factory, run = runImageBuild): Command {
  return new Command('build')
    .description('build the offline docker images (frr, host, ssh) from Debian packages into the local Docker, tagged emuctl/NAME:latest')
    .argument('<name...>', `image to build: ${OFFLINE_IMAGE_NAMES.join(', ')}`)
    .addOption(new Option('--tag <tag>', 'tag the image with this name too (one image only)'))
    .addOption(imageComputeOption())
    .action(async (names: string[], flags: { tag?: string; compute?: string }, cmd: Command) =>
      run(parseImageBuild(names, flags), await f.context(cmd)));
}

/** argv → options: known names, no repeats, --tag with a single image. */
export function parseImageBuild(names: string[], flags: { tag?: string; compute?: string }): ImageBuildOptions {
  const unknown = names.filter((n) => !(OFFLINE_IMAGE_NAMES as readonly string[]).includes(n));
  if (unknown.length) throw new UsageError(`unknown image ${unknown.join(', ')}: emuctl builds ${OFFLINE_IMAGE_NAMES.join(', ')}`);
  const unique = [...new Set(names)] as OfflineImageName[];
  if (flags.tag !== undefined && unique.length !== 1) throw new UsageError('--tag names one image: build one image with it');
  if (flags.tag !== undefined && !/^[a-z0-9][a-z0-9._/-]*(:[\w][\w.-]{0,127})?$/.test(flags.tag)) throw new UsageError(`--tag ${flags.tag} is not a docker image name`);
  return { names: unique, tag: flags.tag, compute: flags.compute };
}

/** Builds the images in the local Docker (`docker`, `apt-get`, `mmdebstrap`, `gcc`); with a remote compute, loads them there as `image import` does. */
export async function runImageBuild(opts: ImageBuildOptions, ctx: Context): Promise<void> {
  const { buildOfflineImages, ImageBuildError } = await import('../../offline-images/build.js');
  const extraTags = opts.tag ? { [opts.names[0]!]: [opts.tag] } : undefined;
  const images = await ctx.out.spin(`Building ${opts.names.join(', ')} (offline, from Debian packages; the first build takes minutes)`, () =>
    buildOfflineImages(opts.names, { latest: true, extraTags })).catch((err: unknown) => {
    if (err instanceof ImageBuildError) throw new OperationError(`cannot build ${opts.names.join(', ')}: ${err.message}`);
    throw err;
  });
  let computeId = 'local';
  if (opts.compute !== undefined && opts.compute !== 'local') {
    computeId = await imageComputeId(ctx, opts.compute);
    await loadOnCompute(ctx, computeId, images.flatMap((i) => i.tags));
  }
  ctx.out.result(images.map((i) => ({ ...i, compute_id: computeId })));
  for (const i of images) ctx.out.success(`${i.built ? 'Built' : 'Already built'} ${i.tag}, tagged ${i.tags.slice(1).join(', ')}${computeId === 'local' ? '' : `, loaded into compute ${computeId}`}`);
}

/** `docker save` of the tags into a temporary archive, streamed to the compute's docker load (as `image import`). */
async function loadOnCompute(ctx: Context, computeId: string, tags: string[]): Promise<void> {
  const [{ execFile }, { promisify }, { importDockerImages }, { streamServer }, { withProgress }] = await Promise.all([
    import('node:child_process'), import('node:util'), import('../../client/images.js'), import('../shared/streams.js'), import('./shared.js'),
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'emuctl-image-build-'));
  try {
    const archive = join(dir, 'images.tar');
    await promisify(execFile)('docker', ['save', '-o', archive, ...tags]).catch((err: Error & { stderr?: string }) => {
      throw new OperationError(`cannot save ${tags.join(', ')} for compute ${computeId}: ${(err.stderr ?? err.message).trim()}`);
    });
    await withProgress(ctx, `Loading into compute ${computeId}`, (progress) => importDockerImages(streamServer(ctx), computeId, archive, progress));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
