// The pid file a daemon writes per port (see paths.ts): shared by the daemon and the CLI.
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { identityOf, isRunning, isSameRunningProcess, type ProcessIdentity } from '../util/proc-info.js';

/** What a running daemon writes in its pid file. */
export interface PidRecord {
  pid: number;
  url: string;
  startedAt: string;
  /** Kernel start time of the process (clock ticks since boot): a later process reusing the pid has another. */
  startTime?: number;
  /** Its command line, checked too before it is signalled. */
  cmdline?: string[];
  /** With TLS: the SHA-256 fingerprint of its certificate, which `daemon status` pins. */
  fingerprint?: string;
}

/** The record for this process: pid, start time and command line from /proc, with its URL. */
export function ownPidRecord(url: string, startedAt: string, fingerprint?: string): PidRecord {
  const self = identityOf(process.pid);
  return { pid: process.pid, url, startedAt, startTime: self?.startTime, cmdline: self?.cmdline, fingerprint };
}

/** The pid file's record, or null when there is none (or it is unreadable). */
export function readPidRecord(file: string): PidRecord | null {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<PidRecord>;
    if (typeof record.pid !== 'number' || typeof record.url !== 'string') return null;
    const identity = typeof record.startTime === 'number' && Array.isArray(record.cmdline) && record.cmdline.every((a) => typeof a === 'string')
      ? { startTime: record.startTime, cmdline: record.cmdline } : {};
    const fingerprint = typeof record.fingerprint === 'string' ? { fingerprint: record.fingerprint } : {};
    return { pid: record.pid, url: record.url, startedAt: String(record.startedAt ?? ''), ...identity, ...fingerprint };
  } catch {
    return null;
  }
}

/** The pid files under `runDir` (one per daemon port), with their records. */
export function readPidRecords(runDir: string): { file: string; record: PidRecord }[] {
  let names: string[];
  try {
    names = readdirSync(runDir).filter((name) => /^daemon-\d+\.pid$/.test(name));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const record = readPidRecord(join(runDir, name));
    return record ? [{ file: join(runDir, name), record }] : [];
  });
}

/** Removes a pid file left by a daemon that died without cleaning up. */
export function removePidRecord(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/**
 * What runs under the record's pid: `daemon` (same pid, start time and command line), `gone`
 * (nothing, or a zombie), `other` (the pid now belongs to another process: the file is stale), or
 * `unverified` (a record without start time and command line, from an older emuctl).
 */
export type RecordedProcess = 'daemon' | 'gone' | 'other' | 'unverified';

/** Checks the process a pid record names, as the VPCS supervision does before it signals. */
export function recordedProcess(record: PidRecord): RecordedProcess {
  if (!isRunning(record.pid)) return 'gone';
  const identity = recordIdentity(record);
  if (!identity) return 'unverified';
  return isSameRunningProcess(identity) ? 'daemon' : 'other';
}

/** The identity a record holds, when it holds one. */
export function recordIdentity(record: PidRecord): ProcessIdentity | undefined {
  return record.startTime !== undefined && record.cmdline ? { pid: record.pid, startTime: record.startTime, cmdline: record.cmdline } : undefined;
}

/** Whether the process runs (a zombie, dead but not yet reaped, counts as gone). */
export function isProcessAlive(pid: number): boolean {
  return isRunning(pid);
}
