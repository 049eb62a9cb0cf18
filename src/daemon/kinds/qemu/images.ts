import { createHash } from 'node:crypto';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ByteCount } from '../../../util/byte-limit.js';
import { ConflictError, InvalidError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import { pathNameProblem, quoteName } from '../../file-names.js';
import { openForRead, pathSegments, replaceFileUnder, withDir, type SafeDir } from '../../safe-fs.js';

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
 * inside that directory; anything that would leave it is a 400, a link on the way a 403. Uploads
 * stream to a temporary file renamed into place, so a half-written image is never seen under its name.
 */
export class ImageStore {
  constructor(readonly dir: string, readonly maxUploadBytes: number) {}

  /**
   * The absolute path of an image name; InvalidError (400) when it leaves the images directory, has
   * a `..` part, a part starting with a dot (hidden files, emuctl's temporary uploads) or ending in
   * `.md5sum`, or could not be created as a file (a control character, a part over NAME_MAX bytes…).
   */
  pathOf(name: string): string {
    if (!name || name.includes('\0')) throw new InvalidError(`Invalid image name '${quoteName(name)}'`);
    const root = resolve(this.dir);
    const path = resolve(root, name);
    const rel = relative(root, path);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) throw new InvalidError(`Image name '${quoteName(name)}' is outside the images directory ${root}`);
    const parts = rel.split(sep);
    const problem = pathNameProblem(rel, root)
      ?? (name.split(/[\\/]/).includes('..') ? "has a '..' part" : undefined)
      ?? (parts.some((part) => part.startsWith('.') || part.endsWith(MD5_SUFFIX)) ? `has a part that starts with '.' or ends in '${MD5_SUFFIX}'` : undefined);
    if (problem) throw new InvalidError(`Image name '${quoteName(name)}' ${problem}`);
    return path;
  }

  /**
   * The path of an existing image; ConflictError (409) naming it when it is missing, InvalidError
   * (400) when a symbolic link on the way leads out of the images directory.
   */
  async existing(name: string, what = 'image'): Promise<string> {
    const path = this.pathOf(name);
    let real: string | undefined;
    try {
      real = await realpath(path);
    } catch {
      // missing: below
    }
    if (real !== undefined) {
      const root = await realpath(this.dir);
      const rel = relative(root, real);
      if (!rel || rel.startsWith('..') || isAbsolute(rel)) throw new InvalidError(`The ${what} '${name}' is a link out of the images directory ${resolve(this.dir)}`);
      if ((await stat(real)).isFile()) return real;
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
        else if (entry.isFile()) {
          // A file refused by md5 (swapped for a link, hard-linked) is left out, as links are.
          const md5sum = await this.md5(path).catch(() => undefined);
          if (md5sum) out.push({ filename: this.nameOf(path), path, filesize: (await stat(path)).size, md5sum });
        }
      }
    };
    await walk(resolve(this.dir));
    return out;
  }

  /** The md5 of an image file, from its .md5sum cache when that is not older than the image. */
  async md5(path: string): Promise<string> {
    const below = this.below(path);
    const image = await openForRead(this.root, below);
    try {
      const cache = await openForRead(this.root, below + MD5_SUFFIX).catch(() => undefined);
      if (cache) {
        const fresh = (await cache.stat()).mtimeMs >= (await image.stat()).mtimeMs;
        const cached = fresh ? (await cache.readFile('utf8').finally(() => cache.close())).trim().split(/\s+/)[0] : (await cache.close(), '');
        if (/^[0-9a-f]{32}$/.test(cached)) return cached;
      }
      const hash = createHash('md5');
      await pipeline(image.createReadStream({ autoClose: false }), hash);
      const md5 = hash.digest('hex');
      await this.cacheMd5(below, md5);
      return md5;
    } finally {
      await image.close();
    }
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
    const hash = createHash('md5');
    const limit = this.maxUploadBytes;
    const count = new ByteCount(limit, () => new PayloadTooLargeError(`Image upload is larger than the limit of ${limit} bytes (setting max_image_bytes)`));
    const meter = (chunk: Buffer) => {
      count.add(chunk);
      hash.update(chunk);
    };
    // Written in the image's directory held open, reached with no link followed (403); nothing left on failure.
    await replaceFileUnder(this.root, this.below(path), body, { onChunk: meter });
    const md5sum = hash.digest('hex');
    await this.cacheMd5(this.below(path), md5sum);
    return { filename: this.nameOf(path), path, filesize: count.bytes, md5sum };
  }

  /** Keeps an image's md5 beside it; the cache is optional, so one that cannot be written (full disk) is only removed, never left stale. */
  private async cacheMd5(below: string, md5sum: string): Promise<void> {
    await replaceFileUnder(this.root, below + MD5_SUFFIX, md5sum).catch(() => this.inDirectoryOf(join(this.root, below), false, (dir) => dir.remove(basename(below) + MD5_SUFFIX)).catch(() => undefined));
  }

  /** Deletes an image and its md5 cache; NotFoundError when it does not exist. */
  async remove(name: string): Promise<void> {
    const path = this.pathOf(name);
    await this.inDirectoryOf(path, false, async (dir) => {
      await dir.remove(basename(path));
      await dir.remove(basename(path) + MD5_SUFFIX).catch(() => undefined);
    }).catch((err) => {
      if (err instanceof NotFoundError || (err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`Image '${name}' doesn't exist`);
      throw err;
    });
  }

  /** A read stream of an existing image (GET download). */
  async open(name: string): Promise<{ stream: Readable; size: number }> {
    const handle = await openForRead(this.root, this.below(this.pathOf(name))).catch((err) => {
      throw err instanceof NotFoundError ? new NotFoundError(`Image '${name}' doesn't exist`) : err;
    });
    return { stream: handle.createReadStream(), size: (await handle.stat()).size };
  }

  private get root(): string {
    return resolve(this.dir);
  }

  /** An image path (from pathOf) relative to the images directory. */
  private below(path: string): string {
    return relative(this.root, path).split(sep).join('/');
  }

  /** Runs `use` on the directory holding `path`, reached from the images directory with no link followed. */
  private inDirectoryOf<T>(path: string, create: boolean, use: (dir: SafeDir) => Promise<T>): Promise<T> {
    return withDir(this.root, pathSegments(relative(this.root, dirname(path)).split(sep).join('/')), create, use);
  }
}
