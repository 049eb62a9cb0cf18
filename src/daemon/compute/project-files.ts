import { createHash } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { cp, lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConflictError, diskError, DomainError, InvalidError } from '../errors.js';
import { openForRead, pathSegments, relativeBelow, replaceFileUnder, SafeDir, withDir } from '../safe-fs.js';

/** A file of a project as GNS3's compute lists it. */
export interface ProjectFile {
  path: string;
  md5sum: string;
}

/** Checks a client's relative path: absolute paths, `..` segments, backslashes and NUL are refused (400). */
export function checkRelativePath(relativePath: string): string {
  if (relativePath === '' || pathSegments(relativePath).length === 0) throw new InvalidError(`path '${relativePath}' names no file`);
  return relativePath;
}

/** The absolute path of `relativePath` inside `root`: a client never reaches outside the directory it was given. */
export function pathInside(root: string, relativePath: string): string {
  return join(resolve(root), ...pathSegments(checkRelativePath(relativePath)));
}

/**
 * Where a project's files are reached from with no link followed: the projects directory (the
 * trusted root) and the project's path below it, as a relative path (400 when outside).
 */
export function projectBelow(projectsDir: string, projectPath: string, relativePath = ''): string {
  return [relativeBelow(projectsDir, projectPath), ...pathSegments(relativePath)].join('/');
}

/**
 * Replaces directory `to` with a copy of `from` (links copied as links), as GNS3 duplicates a node's
 * files; `skip` leaves paths out, and so are sockets and pipes (a running node's console socket).
 */
export async function copyNodeDirectory(from: string, to: string, skip: (path: string) => boolean = () => false): Promise<void> {
  if (!existsSync(from)) return;
  await rm(to, { recursive: true, force: true });
  const copied = async (src: string): Promise<boolean> => {
    if (skip(src)) return false;
    const stats = await lstat(src);
    return stats.isFile() || stats.isDirectory() || stats.isSymbolicLink();
  };
  await cp(from, to, { recursive: true, verbatimSymlinks: true, filter: copied });
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

/** The files of the project directory `below` the projects directory `root`, with their MD5 sums (GNS3's `GET …/files`); links are skipped. */
export async function listProjectFiles(root: string, below: string): Promise<ProjectFile[]> {
  const files: ProjectFile[] = [];
  const visit = async (dir: SafeDir, prefix: string): Promise<void> => {
    for (const entry of await dir.entries()) {
      const path = prefix + entry.name;
      if (entry.isDirectory()) {
        const child = await dir.child(entry.name).catch(() => undefined);
        if (!child) continue;
        try {
          await visit(child, `${path}/`);
        } finally {
          await child.close();
        }
      } else if (entry.isFile()) {
        const md5sum = await md5Of(dir, entry.name);
        if (md5sum) files.push({ path, md5sum });
      }
    }
  };
  await withDir(root, pathSegments(below), false, (dir) => visit(dir, ''));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The MD5 of a regular file of `dir`, or undefined when it is gone or refused (a link, a hard link). */
async function md5Of(dir: SafeDir, name: string): Promise<string | undefined> {
  const handle = await dir.file(name, constants.O_RDONLY).catch(() => undefined);
  if (!handle) return undefined;
  const hash = createHash('md5');
  try {
    await pipeline(handle.createReadStream(), hash);
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A stream of the regular file `relativePath` below `root`, reached with no link followed (403); 404 when missing. */
export async function openProjectFile(root: string, relativePath: string): Promise<Readable> {
  const handle = await openForRead(root, relativePath);
  return handle.createReadStream();
}

/**
 * Writes a file below `root` from a stream (directories made 0700, the file 0600) through a temporary
 * file renamed into place; no link is followed, and nothing is left when it fails.
 */
export async function writeProjectFile(root: string, relativePath: string, data: Readable): Promise<void> {
  try {
    await replaceFileUnder(root, relativePath, data);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw pathError(err as NodeJS.ErrnoException, relativePath);
  }
}

/** A path that names no file that can be written (a directory in the way, a file used as a directory, too long) is the client's error. */
function pathError(err: NodeJS.ErrnoException, relativePath: string): Error {
  if (err.code === 'ENAMETOOLONG') return new InvalidError(`path '${relativePath}' is too long`);
  if (err.code === 'EISDIR' || err.code === 'ENOTDIR' || err.code === 'EEXIST') return new ConflictError(`Cannot write '${relativePath}': a file or directory is in the way`);
  return diskError(relativePath, err) as Error;
}
