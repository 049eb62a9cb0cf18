import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFileUnder } from '../safe-fs.js';
import type { Project } from './project.js';

/** Which nodes run, kept beside the topology so a reopened auto_start project restarts just those (even after a crash). */
export const RUNNING_FILE = join('project-files', 'emuctl-running.json');

/** The node ids recorded as running. */
export async function readRunning(project: Project): Promise<string[]> {
  try {
    return JSON.parse(await readFile(join(project.path, RUNNING_FILE), 'utf8')) as string[];
  } catch {
    return [];
  }
}

/** Records the running nodes of a project (its project-files directory made when missing: a restored snapshot whose nodes all run on remote computes has none). */
export async function writeRunning(project: Project, nodeIds: string[]): Promise<void> {
  await replaceFileUnder(project.path, RUNNING_FILE, JSON.stringify(nodeIds));
}
