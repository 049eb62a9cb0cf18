import type { NeededImage } from './appliance.js';

/** An image a compute holds, as GET /v2/compute/qemu/images lists it. */
export interface ComputeImage {
  filename: string;
  path: string;
  filesize: number;
  md5sum: string;
}

/** Whether the compute has a needed image. */
export type ImageMatch =
  | { state: 'present'; need: NeededImage; path: string }
  | { state: 'md5-differs'; need: NeededImage; path: string; md5sum: string }
  | { state: 'missing'; need: NeededImage };

/**
 * The name a template gives an image: GNS3 lists `path` relative to its images directory and
 * `filename` as the base name; emuctl lists `filename` relative and `path` absolute. The
 * relative one is what a template names.
 */
export function imageName(image: ComputeImage): string {
  return image.path.startsWith('/') ? image.filename : image.path;
}

/**
 * Matches one needed image against the compute's images, by file name and md5 as GNS3's GUI
 * does: the file of that name with that md5, else a file of another name with that md5 (GNS3
 * installs with the compute's name for it). A file of that name with another md5 is not the
 * image. An image the appliance gives no md5 for matches by name alone.
 */
export function matchImage(need: NeededImage, images: readonly ComputeImage[]): ImageMatch {
  const want = need.image.md5sum;
  const base = need.filename.split('/').pop()!;
  const named = images.filter((i) => i.filename.split('/').pop() === base || imageName(i) === need.filename);
  if (want === undefined) return named.length ? { state: 'present', need, path: imageName(named[0]) } : { state: 'missing', need };
  const exact = named.find((i) => i.md5sum === want) ?? images.find((i) => i.md5sum === want);
  if (exact) return { state: 'present', need, path: imageName(exact) };
  if (named.length) return { state: 'md5-differs', need, path: imageName(named[0]), md5sum: named[0].md5sum };
  return { state: 'missing', need };
}

/** One line on an image that is not usable: its name, md5 and size, and what is wrong. */
export function describeProblem(match: ImageMatch): string | undefined {
  const { image, filename } = match.need;
  const id = `${filename} (md5 ${image.md5sum ?? 'not given'}, ${image.filesize ?? '?'} bytes)`;
  if (match.state === 'missing') return `image ${id} is missing`;
  if (match.state === 'md5-differs') return `image ${id}: the compute's ${match.path} has md5 ${match.md5sum}`;
  return undefined;
}
