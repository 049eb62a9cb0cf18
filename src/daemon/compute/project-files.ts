import { mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { InvalidError, NotFoundError } from '../errors.js';
import { replaceFile } from './replace-file.js';

/**
 * The file `relative` names inside a project directory. GNS3 answers 403 to a path that leaves the
 * project; emuctl refuses it with 400 naming the path, before touching the disk.
 */
export function projectFilePath(projectDir: string, relative: string): string {
  const clean = normalize(relative);
  if (relative.includes('\0') || isAbsolute(relative) || clean === '.' || clean === '..' || clean.startsWith(`..${sep}`)) {
    throw new InvalidError(`File path '${relative}' is not inside the project`);
  }
  return join(projectDir, clean);
}

/** A project file's bytes (GNS3's GET …/files/{path}); NotFoundError when it does not exist. */
export async function readProjectFile(projectDir: string, relative: string): Promise<Buffer> {
  try {
    return await readFile(projectFilePath(projectDir, relative));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') throw new NotFoundError(`File '${relative}' not found`);
    throw err;
  }
}

/** Writes a project file atomically, creating its directory (GNS3's POST …/files/{path}). */
export async function writeProjectFile(projectDir: string, relative: string, data: Buffer): Promise<void> {
  const target = projectFilePath(projectDir, relative);
  await mkdir(dirname(target), { recursive: true });
  await replaceFile(target, data);
}
