/**
 * Files under a trusted root opened with no symbolic link followed anywhere below it.
 *
 * Node has no openat(2), so the walk goes through `/proc/self/fd/<dirfd>/<name>`: the kernel
 * resolves that prefix to the very directory the descriptor holds (whatever was renamed or
 * swapped since), and O_NOFOLLOW refuses a link as the last component. Each step opens one
 * component from the descriptor of the one before, so a directory swapped for a link between two
 * calls is never followed (no check-then-open race). Files opened for writing are never opened
 * with O_TRUNC: they are checked first (a regular file with no other hard link), then truncated.
 */
import { constants, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { writeFileAtomicIn, type AtomicWriteOptions, type FileData } from './atomic-write.js';
import { ConflictError, diskError, ForbiddenError, InvalidError, NotFoundError } from './errors.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Directories emuctl makes for projects, captures and state: the owner's only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Files emuctl writes for projects, captures and state: the owner's only. */
export const PRIVATE_FILE_MODE = 0o600;

/** The components of a relative path (`a/b/c`); empty segments and `.` dropped, `..`, NUL and backslashes refused (400). */
export function pathSegments(relativePath: string): string[] {
  const bad = relativePath.includes('\0') || relativePath.includes('\\') || relativePath.startsWith('/');
  const segments = relativePath.split('/').filter((s) => s !== '' && s !== '.');
  if (bad || segments.includes('..')) throw new InvalidError(`path '${relativePath.replace(/\0/g, '\\0')}' must stay inside its directory (no '..', absolute path or NUL)`);
  return segments;
}

/** `path` (absolute) as a relative path below `root`, to hand to the functions here; 400 when it is not below it. */
export function relativeBelow(root: string, path: string): string {
  const rel = relative(resolve(root), resolve(path));
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new InvalidError(`${path} is not inside ${root}`);
  return rel.split(sep).join('/');
}

/** True when `inner` is `outer` or below it (both absolute and resolved). */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer + sep);
}

/** A directory held open by descriptor; `at(name)` names an entry of that very directory. */
export class SafeDir {
  private constructor(private readonly handle: FileHandle, readonly shown: string) {}

  /** Opens the trusted `root` itself (links in the root's own path are the administrator's choice). */
  static async root(root: string): Promise<SafeDir> {
    try {
      return new SafeDir(await open(root, O_RDONLY | O_DIRECTORY), '');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`Directory ${root} doesn't exist`);
      throw err;
    }
  }

  /** The path that reaches `name` inside this directory without resolving anything above it. */
  at(name: string): string {
    return `/proc/self/fd/${this.handle.fd}/${name}`;
  }

  /** The directory `name` inside this one, never through a link; made (0700) when `create` and missing. */
  async child(name: string, create = false): Promise<SafeDir> {
    const shown = this.shown ? `${this.shown}/${name}` : name;
    for (;;) {
      try {
        return new SafeDir(await open(this.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW), shown);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && create) {
          await mkdir(this.at(name), PRIVATE_DIR_MODE).catch((e: NodeJS.ErrnoException) => {
            if (e.code !== 'EEXIST') throw e;
          });
          continue;
        }
        throw await this.refusal(name, shown, err as NodeJS.ErrnoException, 'directory', create);
      }
    }
  }

  /** Opens the regular file `name` here with `flags` (O_NOFOLLOW added); refuses links, other kinds and hard-linked files. */
  async file(name: string, flags: number, mode = PRIVATE_FILE_MODE): Promise<FileHandle> {
    const shown = this.shown ? `${this.shown}/${name}` : name;
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a FIFO planted at the name must not hang the open; it changes nothing for regular files.
      handle = await open(this.at(name), flags | O_NOFOLLOW | O_NONBLOCK, mode);
    } catch (err) {
      throw await this.refusal(name, shown, err as NodeJS.ErrnoException, 'file', (flags & O_CREAT) !== 0);
    }
    const info = await handle.stat();
    if (info.isFile() && info.nlink === 1) return handle;
    await handle.close();
    if (info.isDirectory()) throw new NotFoundError(`File ${shown} doesn't exist (it is a directory)`);
    throw new ForbiddenError(`'${shown}' ${info.isFile() ? 'has other hard links' : 'is not a regular file'}: refused`);
  }

  /** The entries of this directory (links are reported as links, never followed). */
  entries(): Promise<Dirent[]> {
    return readdir(this.at(''), { withFileTypes: true });
  }

  /** Renames an entry of this directory onto another (a link at `to` is replaced, not followed). */
  rename(from: string, to: string): Promise<void> {
    return rename(this.at(from), this.at(to));
  }

  /** Removes a file, or with `recursive` a whole tree (links inside are removed, not followed). */
  async remove(name: string, recursive = false): Promise<void> {
    if (recursive) await rm(this.at(name), { recursive: true, force: true });
    else await unlink(this.at(name));
  }

  /** Makes this directory private (0700), through its descriptor. */
  makePrivate(): Promise<void> {
    return this.handle.chmod(PRIVATE_DIR_MODE);
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /** Why opening `name` failed, as a domain error: a link is 403, a missing entry 404 (a name too long to exist too), a wrong kind 409. */
  private async refusal(name: string, shown: string, err: NodeJS.ErrnoException, wanted: string, creating: boolean): Promise<Error> {
    const info = await lstat(this.at(name)).catch(() => undefined);
    if (info?.isSymbolicLink()) return new ForbiddenError(`'${shown}' is a symbolic link: refused`);
    if (err.code === 'ENOENT' || (err.code === 'ENAMETOOLONG' && !creating)) return new NotFoundError(`${wanted === 'file' ? 'File' : 'Directory'} ${shown} doesn't exist`);
    if (err.code === 'ENOTDIR' || err.code === 'EISDIR' || err.code === 'EEXIST' || err.code === 'ENXIO') return new ConflictError(`Cannot use '${shown}' as a ${wanted}: something else is in the way`);
    if (err.code === 'ENAMETOOLONG') return new InvalidError(`path '${shown}' is too long`);
    return err;
  }
}

/** Runs `use` on the directory `segments` below `root`, reached with no link followed (made 0700 with `create`, the root too). */
export async function withDir<T>(root: string, segments: string[], create: boolean, use: (dir: SafeDir) => Promise<T>): Promise<T> {
  if (create) await ensurePrivateDir(root);
  let dir = await SafeDir.root(root);
  try {
    for (const segment of segments) {
      const next = await dir.child(segment, create);
      await dir.close();
      dir = next;
    }
    return await use(dir);
  } finally {
    await dir.close();
  }
}

/** Splits a relative file path into its directory segments and its name (400 when it names no file). */
function fileSegments(relativePath: string): { dirs: string[]; name: string } {
  const segments = pathSegments(relativePath);
  const name = segments.pop();
  if (!name) throw new InvalidError(`path '${relativePath}' names no file`);
  return { dirs: segments, name };
}

/** Opens the regular file `relativePath` below `root` for reading, with no link followed (403), 404 when missing. */
export async function openForRead(root: string, relativePath: string): Promise<FileHandle> {
  const { dirs, name } = fileSegments(relativePath);
  return withDir(root, dirs, false, (dir) => dir.file(name, O_RDONLY));
}

/**
 * Opens `relativePath` below `root` for writing (directories made 0700, the file 0600), with no
 * link followed: truncated, or continued with `append`. An existing file is checked before it is
 * truncated, so a link or a hard-linked file never loses its content.
 */
export async function openForWrite(root: string, relativePath: string, append = false): Promise<FileHandle> {
  const { dirs, name } = fileSegments(relativePath);
  return withDir(root, dirs, true, async (dir) => {
    const handle = await dir.file(name, O_WRONLY | O_CREAT | (append ? O_APPEND : 0));
    try {
      await handle.chmod(PRIVATE_FILE_MODE);
      if (!append) await handle.truncate(0);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return handle;
  });
}

/** Creates the new file `relativePath` below `root` (0600; directories made 0700), with no link followed; 409 when it exists. */
export async function openNew(root: string, relativePath: string): Promise<FileHandle> {
  const { dirs, name } = fileSegments(relativePath);
  return withDir(root, dirs, true, (dir) => dir.file(name, O_WRONLY | O_CREAT | O_EXCL));
}

/** Makes the directory `relativePath` below `root` and its parents (0700), refusing links on the way. */
export async function makeDirs(root: string, relativePath: string): Promise<void> {
  await withDir(root, pathSegments(relativePath), true, async () => undefined);
}

/**
 * Writes `relativePath` below `root` through a new temporary file (0600) renamed into place in the
 * same directory held open, so a link at the name is replaced, never followed. On any failure the
 * temporary file and the directories this write made go again, and a full disk is the 507 (see atomic-write).
 */
export async function replaceFileUnder(root: string, relativePath: string, data: FileData, opts: AtomicWriteOptions = {}): Promise<void> {
  const { dirs, name } = fileSegments(relativePath);
  const existing = await existingDepth(root, dirs);
  try {
    await withDir(root, dirs, true, (dir) => writeFileAtomicIn((entry) => dir.at(entry), name, relativePath, data, { mode: PRIVATE_FILE_MODE, ...opts }));
  } catch (err) {
    if (existing < dirs.length) await withDir(root, dirs.slice(0, existing), false, (dir) => dir.remove(dirs[existing], true)).catch(() => undefined);
    // Making a directory on a full disk fails too, before any file is written.
    throw diskError(relativePath, err);
  }
}

/**
 * How many leading directories of `dirs` already exist below `root` (a write would make the others).
 * Anything in the way other than a missing directory (a link: 403) counts as existing: never removed.
 */
async function existingDepth(root: string, dirs: string[]): Promise<number> {
  for (let depth = dirs.length; depth > 0; depth--) {
    try {
      return await withDir(root, dirs.slice(0, depth), false, async () => depth);
    } catch (err) {
      if (!(err instanceof NotFoundError)) return dirs.length;
    }
  }
  return 0;
}

/** Removes the file `relativePath` below `root` (a link there is removed, not followed). */
export async function removeFileUnder(root: string, relativePath: string): Promise<void> {
  const { dirs, name } = fileSegments(relativePath);
  await withDir(root, dirs, false, (dir) => dir.remove(name));
}

/**
 * Makes the trusted directory `path` and its missing parents private (0700). An existing directory
 * keeps its mode: it may be one the user shares on purpose (a home, or /tmp).
 */
export async function ensurePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}
