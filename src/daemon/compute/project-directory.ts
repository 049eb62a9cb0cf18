import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConflictError } from '../errors.js';
import { isWithin } from '../safe-fs.js';

/**
 * Refuses (409) a compute project directory that belongs to another project: one that is, holds or
 * sits inside the directory of another project of this compute, or that is (or sits inside) a
 * directory whose `.gns3` topology names another project. A client could otherwise create a
 * project on a victim's directory and delete it (removing the victim's files) or overwrite them.
 */
export async function checkProjectDirectory(projectsDir: string, id: string, path: string, others: Iterable<{ id: string; path: string }>): Promise<void> {
  for (const other of others) {
    if (other.id !== id && (isWithin(path, other.path) || isWithin(other.path, path))) throw new ConflictError(`path ${path} overlaps the directory of project ${other.id}`);
  }
  const root = resolve(projectsDir);
  for (let dir = path; dir !== root && isWithin(dir, root); dir = dirname(dir)) {
    const owner = await topologyOwnerOtherThan(dir, id);
    if (owner) throw new ConflictError(`path ${path} is inside the directory of project ${owner}`);
  }
}

/** The project id a `.gns3` file in `dir` names, when it is not `id` (missing or unreadable files name nobody). */
async function topologyOwnerOtherThan(dir: string, id: string): Promise<string | undefined> {
  const files = (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isFile() && e.name.endsWith('.gns3'));
  for (const file of files) {
    const owner = await readFile(join(dir, file.name), 'utf8').then((text) => (JSON.parse(text) as { project_id?: unknown }).project_id, () => undefined);
    if (typeof owner === 'string' && owner.toLowerCase() !== id.toLowerCase()) return owner;
  }
  return undefined;
}
