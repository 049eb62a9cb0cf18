// The pid file a daemon writes per port (see paths.ts): shared by the daemon and the CLI.
import { readFileSync, unlinkSync } from 'node:fs';

/** What a running daemon writes in its pid file. */
export interface PidRecord {
  pid: number;
  url: string;
  startedAt: string;
}

/** The pid file's record, or null when there is none (or it is unreadable). */
export function readPidRecord(file: string): PidRecord | null {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<PidRecord>;
    return typeof record.pid === 'number' && typeof record.url === 'string'
      ? { pid: record.pid, url: record.url, startedAt: String(record.startedAt ?? '') } : null;
  } catch {
    return null;
  }
}

/** Removes a pid file left by a daemon that died without cleaning up. */
export function removePidRecord(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Whether the process runs (a zombie, dead but not yet reaped, counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; state Z is a zombie.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
