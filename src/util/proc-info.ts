import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** What tells one process apart from a later one that reuses its PID: PID, kernel start time, command line. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks since boot when the process started. */
  startTime: number;
  cmdline: string[];
}

/** The fields of /proc/<pid>/stat this module uses. */
export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), T, X, … */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  startTime: number;
}

/** Clock ticks per second of /proc start times (USER_HZ, 100 on every Linux ABI Node runs on). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** Clock ticks since boot now, on the scale of /proc/<pid>/stat start times (from /proc/uptime). */
export function ticksSinceBoot(): number {
  const seconds = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return Math.floor(seconds * CLOCK_TICKS_PER_SECOND);
}

/** Parses /proc/<pid>/stat, or undefined when the process does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0],
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    startTime: Number(fields[19]),
  };
}

/** The argv of a process; empty for zombies and kernel threads, undefined when it does not exist. */
export function readCmdline(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw === '') return [];
    return raw.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}

/** The working directory of a process, when it is readable. */
export function readCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/** The identity of a running process, or undefined when it is gone or a zombie. */
export function identityOf(pid: number): ProcessIdentity | undefined {
  const stat = readProcStat(pid);
  const cmdline = readCmdline(pid);
  if (!stat || !cmdline || stat.state === 'Z' || stat.state === 'X') return undefined;
  return { pid, startTime: stat.startTime, cmdline };
}

/** True when `identity` still names a running process: same PID, same start time, same command line. */
export function isSameRunningProcess(identity: ProcessIdentity): boolean {
  const now = identityOf(identity.pid);
  return (
    now !== undefined &&
    now.startTime === identity.startTime &&
    now.cmdline.length === identity.cmdline.length &&
    now.cmdline.every((arg, i) => arg === identity.cmdline[i])
  );
}

/** Every process visible in /proc. */
export function listProcesses(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** The running direct children of a process. */
export function childrenOf(pid: number): ProcStat[] {
  return listProcesses().filter((p) => p.ppid === pid && p.state !== 'Z' && p.state !== 'X');
}
