import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeFileAtomic } from '../../atomic-write.js';
import { ConflictError, InvalidError, NotFoundError, PayloadTooLargeError } from '../../errors.js';

/** An image as GET /v2/compute/qemu/images lists it (GNS3 fields). */
export interface ImageInfo {
  filename: string;
  path: string;
  filesize: number;
  md5sum: string;
}

/** GNS3 caches an image's md5 in `<image>.md5sum` beside it. */
const MD5_SUFFIX = '.md5sum';
/** Names emuctl's older uploads gave their temporary files: refused as image names. */
const TEMP_PREFIX = '.upload-';

/**
 * The QEMU images of a compute, in one directory (`images_dir`). Names are file names or paths
 * inside that directory; anything that would leave it is a 400. Uploads stream to a temporary file
 * renamed into place, so a half-written image is never seen under its name.
 */
export class ImageStore {
  constructor(readonly dir: string, readonly maxUploadBytes: number) {}

  /** The absolute path of an image name; InvalidError (400) when it leaves the images directory. */
  pathOf(name: string): string {
    if (!name || name.includes('\0')) throw new InvalidError(`Invalid image name '${name}'`);
    const root = resolve(this.dir);
    const path = resolve(root, name);
    const rel = relative(root, path);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) throw new InvalidError(`Image name '${name}' is outside the images directory ${root}`);
    if (rel.split(sep).some((part) => part.startsWith(TEMP_PREFIX) || part.endsWith(MD5_SUFFIX))) throw new InvalidError(`Invalid image name '${name}'`);
    return path;
  }

  /** The path of an existing image; ConflictError (409) naming it when it is missing. */
  async existing(name: string, what = 'image'): Promise<string> {
    const path = this.pathOf(name);
    try {
      if ((await stat(path)).isFile()) return path;
    } catch {
      // missing: below
    }
    throw new ConflictError(`The ${what} '${name}' does not exist in the images directory ${resolve(this.dir)}: upload it first (emuctl image upload)`);
  }

  /** The name to store for a path: relative to the images directory when inside it. */
  nameOf(path: string): string {
    const rel = relative(resolve(this.dir), path);
    return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
  }

  /** Every image, with its size and md5 (computed once, then read from the .md5sum cache). */
  async list(): Promise<ImageInfo[]> {
    const out: ImageInfo[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.name.startsWith('.') || entry.name.endsWith(MD5_SUFFIX)) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.isFile()) out.push({ filename: this.nameOf(path), path, filesize: (await stat(path)).size, md5sum: await this.md5(path) });
      }
    };
    await walk(resolve(this.dir));
    return out;
  }

  /** The md5 of an image file, from its .md5sum cache when that is not older than the image. */
  async md5(path: string): Promise<string> {
    const [image, cache] = await Promise.all([stat(path), stat(path + MD5_SUFFIX).catch(() => undefined)]);
    if (cache && cache.mtimeMs >= image.mtimeMs) {
      const cached = (await readFile(path + MD5_SUFFIX, 'utf8')).trim().split(/\s+/)[0];
      if (/^[0-9a-f]{32}$/.test(cached)) return cached;
    }
    const hash = createHash('md5');
    await pipeline(createReadStream(path), hash);
    const md5 = hash.digest('hex');
    await this.cacheMd5(path, md5);
    return md5;
  }

  /** The md5 of an image, or null when it does not exist (for the *_md5sum fields). */
  async md5OrNull(path: string): Promise<string | null> {
    return this.md5(path).catch(() => null);
  }

  /**
   * Streams `body` into the image `name`: hashed on the way, at most `maxUploadBytes` (413), into a
   * temporary file renamed into place; its .md5sum is written with it. Nothing is left on failure.
   */
  async upload(name: string, body: Readable): Promise<ImageInfo> {
    const path = this.pathOf(name);
    const made = await mkdir(dirname(path), { recursive: true });
    const hash = createHash('md5');
    let size = 0;
    const limit = this.maxUploadBytes;
    const meter = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) throw new PayloadTooLargeError(`Image upload is larger than the limit of ${limit} bytes (setting max_image_bytes)`);
      hash.update(chunk);
    };
    try {
      await writeFileAtomic(path, body, { onChunk: meter });
    } catch (err) {
      if (made) await rm(made, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    const md5sum = hash.digest('hex');
    await this.cacheMd5(path, md5sum);
    return { filename: this.nameOf(path), path, filesize: size, md5sum };
  }

  /** Keeps an image's md5 beside it; the cache is optional, so one that cannot be written (full disk) is only removed, never left stale. */
  private async cacheMd5(path: string, md5sum: string): Promise<void> {
    await writeFileAtomic(path + MD5_SUFFIX, md5sum).catch(() => unlink(path + MD5_SUFFIX).catch(() => undefined));
  }

  /** Deletes an image and its md5 cache; NotFoundError when it does not exist. */
  async remove(name: string): Promise<void> {
    const path = this.pathOf(name);
    try {
      await unlink(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`Image '${name}' doesn't exist`);
      throw err;
    }
    await unlink(path + MD5_SUFFIX).catch(() => undefined);
  }

  /** A read stream of an existing image (GET download). */
  async open(name: string): Promise<{ stream: Readable; size: number }> {
    const path = this.pathOf(name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) throw new NotFoundError(`Image '${name}' doesn't exist`);
    return { stream: createReadStream(path), size: info.size };
  }
}
