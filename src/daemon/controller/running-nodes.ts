import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
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

/** Records the running nodes of a project. */
export async function writeRunning(project: Project, nodeIds: string[]): Promise<void> {
  await writeFileAtomic(join(project.path, RUNNING_FILE), JSON.stringify(nodeIds));
}
