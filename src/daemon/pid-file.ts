import { mkdir, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from './controller/atomic-write.js';

/** What a running daemon records about itself. */
export interface PidRecord {
  pid: number;
  url: string;
  startedAt: string;
}

/** Writes the pid file of a daemon. */
export async function writePidFile(path: string, record: PidRecord): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, JSON.stringify(record) + '\n');
}

/** Reads a pid file; null when absent or unreadable. */
export async function readPidFile(path: string): Promise<PidRecord | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as PidRecord;
  } catch {
    return null;
  }
}

/** Removes the pid file if it still names `pid`. */
export async function removePidFile(path: string, pid: number): Promise<void> {
  const record = await readPidFile(path);
  if (record?.pid === pid) await unlink(path).catch(() => {});
}

/** Whether a process with that pid is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
