import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { cp, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeFileAtomic } from '../atomic-write.js';
import { ConflictError, diskError, InvalidError, NotFoundError } from '../errors.js';

/** A file of a project as GNS3's compute lists it. */
export interface ProjectFile {
  path: string;
  md5sum: string;
}

/** Checks a client's relative path: absolute paths, `..` segments, backslashes and NUL are refused (400). */
export function checkRelativePath(relativePath: string): string {
  const bad = relativePath === '' || relativePath.includes('\0') || relativePath.includes('\\') || isAbsolute(relativePath)
    || relativePath.split('/').some((segment) => segment === '..');
  if (bad) throw new InvalidError(`path '${relativePath.replace(/\0/g, '\\0')}' must stay inside the project directory (no '..', absolute path or NUL)`);
  return relativePath;
}

/** The absolute path of `relativePath` inside `root`: a client never reaches outside the directory it was given. */
export function pathInside(root: string, relativePath: string): string {
  const full = resolve(root, checkRelativePath(relativePath));
  if (full !== resolve(root) && !full.startsWith(resolve(root) + sep)) throw new InvalidError(`path '${relativePath}' is outside the project directory`);
  return full;
}

/** Replaces directory `to` with a copy of `from` (links copied as links), as GNS3 duplicates a node's files; `skip` leaves paths out. */
export async function copyNodeDirectory(from: string, to: string, skip: (path: string) => boolean = () => false): Promise<void> {
  if (!existsSync(from)) return;
  await rm(to, { recursive: true, force: true });
  await cp(from, to, { recursive: true, verbatimSymlinks: true, filter: (src) => !skip(src) });
}

/** Every regular file under `root` (symbolic links are not followed), as paths relative to it. */
export async function walkFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (entry.isFile()) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  await visit(root);
  return out.sort();
}

/** The files of a project directory with their MD5 sums (GNS3's `GET …/files`). */
export async function listProjectFiles(root: string): Promise<ProjectFile[]> {
  const files: ProjectFile[] = [];
  for (const path of await walkFiles(root)) {
    const hash = createHash('md5');
    try {
      await pipeline(createReadStream(join(root, path)), hash);
    } catch {
      continue;
    }
    files.push({ path, md5sum: hash.digest('hex') });
  }
  return files;
}

/** A stream of a file inside `root`; 404 when it is not a regular file there. */
export async function openProjectFile(root: string, relativePath: string): Promise<Readable> {
  const path = pathInside(root, relativePath);
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile()) throw new NotFoundError(`File ${relativePath} doesn't exist`);
  return createReadStream(path);
}

/** Writes a file inside `root` from a stream, atomically; directories it had to make go again if the write fails. */
export async function writeProjectFile(root: string, relativePath: string, data: Readable): Promise<void> {
  const path = pathInside(root, relativePath);
  let made: string | undefined;
  try {
    made = await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, data);
  } catch (err) {
    if (made) await rm(made, { recursive: true, force: true }).catch(() => {});
    throw pathError(err as NodeJS.ErrnoException, relativePath);
  }
}

/** A path that names no file that can be written (a directory in the way, a file used as a directory, too long) is the client's error. */
function pathError(err: NodeJS.ErrnoException, relativePath: string): Error {
  if (err.code === 'ENAMETOOLONG') return new InvalidError(`path '${relativePath}' is too long`);
  if (err.code === 'EISDIR' || err.code === 'ENOTDIR' || err.code === 'EEXIST') return new ConflictError(`Cannot write '${relativePath}': a file or directory is in the way`);
  return diskError(relativePath, err) as Error;
}
