import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readPidRecord, removePidRecord, type PidRecord } from '../config/pid-file.js';
import { writeFileAtomic } from './atomic-write.js';

/** Writes the pid file of this daemon (atomically: readers never see half a record). */
export async function writePidFile(path: string, record: PidRecord): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, JSON.stringify(record) + '\n');
}

/** Removes the pid file if it still names `pid` (a newer daemon may have taken the port since). */
export function removeOwnPidFile(path: string, pid: number): void {
  if (readPidRecord(path)?.pid === pid) removePidRecord(path);
}
