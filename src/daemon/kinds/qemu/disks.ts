import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { ConflictError, diskProblem, InsufficientStorageError } from '../../errors.js';
import { childEnvironment } from '../../compute/process/launch.js';
import type { FromSchema } from '../../schemas/validation.js';
import type { QEMU_IMAGE_CREATE_SCHEMA } from './schemas.js';

const run = promisify(execFile);

/** What `qemu-img info` says about an image. */
export interface DiskInfo {
  format: string;
  virtualSize: number;
  backingFile?: string;
  backingFormat?: string;
}

/** Runs qemu-img with the children's minimal environment; its stderr becomes the error message. */
async function qemuImg(qemuImgPath: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run(qemuImgPath, args, { env: childEnvironment(env), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const text = `qemu-img ${args[0]} failed: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' ')}`;
    const disk = QEMU_IMG_DISK_ERRORS.find(([pattern]) => pattern.test(text));
    throw disk ? new InsufficientStorageError(`${text}: ${diskProblem(disk[1])}`) : new ConflictError(text);
  }
}

/** qemu-img's words (strerror) for the disk problems that are a 507, with their errno codes. */
const QEMU_IMG_DISK_ERRORS: [RegExp, string][] = [[/No space left on device/i, 'ENOSPC'], [/Disk quota exceeded/i, 'EDQUOT'], [/Read-only file system/i, 'EROFS'], [/File too large/i, 'EFBIG']];

/** `qemu-img info` of one image (its own layer, not the chain). */
export async function diskInfo(qemuImgPath: string, path: string, env: NodeJS.ProcessEnv): Promise<DiskInfo> {
  const info = JSON.parse(await qemuImg(qemuImgPath, ['info', '--output=json', '-U', path], env)) as Record<string, unknown>;
  return {
    format: String(info.format),
    virtualSize: Number(info['virtual-size']),
    backingFile: (info['full-backing-filename'] ?? info['backing-filename']) as string | undefined,
    backingFormat: info['backing-filename-format'] as string | undefined,
  };
}

/** Formats whose files name no other file, or only in fields checked below (backing file, qcow2 data file). */
const PLAIN_FORMATS = ['qcow2', 'qcow', 'raw', 'vdi', 'vpc', 'vhdx', 'qed'];
/** How deep a backing chain may go. */
const MAX_CHAIN = 16;

/**
 * Checks every file QEMU would open for a disk: the image, each backing file and any qcow2 data
 * file must be plain files inside one of `roots` (links resolved). A disk brought by an archive (a
 * linked clone's overlay) could otherwise name a host file as its backing file or data file.
 * Each layer is read on its own (`qemu-img info` opens no backing file), so nothing outside is
 * opened before it is checked. ConflictError (409) naming the file.
 */
export async function checkDiskFiles(qemuImgPath: string, file: string, roots: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => resolve(r))));
  let current = file;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    const real = await realpath(current).catch(() => undefined);
    if (!real || !realRoots.some((root) => isInside(root, real))) throw new ConflictError(`Disk file '${current}' (of ${file}) is not inside ${roots.join(' or ')}: refusing to start`);
    const info = JSON.parse(await qemuImg(qemuImgPath, ['info', '--output=json', '-U', real], env)) as Record<string, any>;
    if (!PLAIN_FORMATS.includes(String(info.format))) throw new ConflictError(`Disk file '${current}' (of ${file}) is in format ${info.format}, which can name other files: convert it to qcow2 or raw`);
    const dataFile = info['format-specific']?.data?.['data-file'];
    if (dataFile !== undefined) throw new ConflictError(`Disk file '${current}' (of ${file}) has an external data file '${dataFile}': refusing to start`);
    const backing = (info['full-backing-filename'] ?? info['backing-filename']) as string | undefined;
    if (backing === undefined) return;
    if (!isAbsolute(backing) || /^[a-z][\w+.-]*:/i.test(backing)) throw new ConflictError(`Disk file '${current}' (of ${file}) has a backing file '${backing}' that is not a plain file: refusing to start`);
    current = backing;
  }
  throw new ConflictError(`Disk file '${file}' has a backing chain deeper than ${MAX_CHAIN}`);
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** A qcow2 overlay at `overlay` backed by `image` (never written: every write lands in the overlay). */
export async function createLinkedClone(qemuImgPath: string, image: string, overlay: string, env: NodeJS.ProcessEnv): Promise<void> {
  const { format } = await diskInfo(qemuImgPath, image, env);
  await qemuImg(qemuImgPath, ['create', '-f', 'qcow2', '-F', format, '-b', image, overlay], env);
}

/** Options of a new disk image (GNS3's POST /qemu/img body without qemu_img and path). */
/** A disk as `POST /v2/compute/qemu/img` describes it (size in megabytes), without the binary and path. */
export type DiskCreate = Omit<FromSchema<typeof QEMU_IMAGE_CREATE_SCHEMA>, 'qemu_img' | 'path'>;

/** `qemu-img create` with GNS3's format options. */
export async function createDisk(qemuImgPath: string, path: string, spec: DiskCreate, env: NodeJS.ProcessEnv): Promise<void> {
  const { format, size, ...options } = spec;
  const o = Object.entries(options).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`);
  const existed = existsSync(path);
  try {
    await qemuImg(qemuImgPath, ['create', '-f', format, ...(o.length ? ['-o', o.join(',')] : []), path, `${size}M`], env);
  } catch (err) {
    // A disk qemu-img could not finish (a full disk) is not left half-made.
    if (!existed) await unlink(path).catch(() => {});
    throw err;
  }
}

/** Grows a disk image by `extendMb` megabytes. */
export async function extendDisk(qemuImgPath: string, path: string, extendMb: number, env: NodeJS.ProcessEnv): Promise<void> {
  await qemuImg(qemuImgPath, ['resize', path, `+${extendMb}M`], env);
}
