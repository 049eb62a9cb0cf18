import {
  CLOCK_TICKS_PER_SECOND,
  childrenOf,
  identityOf,
  isSameRunningProcess,
  listProcesses,
  readCwd,
  type ProcessIdentity,
} from '../../../util/proc-info.js';

/** An orphan counts as a leader's worker only if it started at most this long after the leader. */
const ORPHAN_START_WINDOW_TICKS = 10 * CLOCK_TICKS_PER_SECOND;

/** A recorded leader: its identity plus the working directory it was started in. */
export interface LeaderRecord extends ProcessIdentity {
  cwd?: string;
}

function sameArgv(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((arg, i) => arg === b[i]);
}

/**
 * The running workers a leader forked. While the leader runs: its children with the same command line.
 * Once it is gone (VPCS's forkpty worker is then reparented, and sits in a session of its own, so
 * neither its parent nor its session id lead back to the leader): processes with the same command
 * line and working directory that lead their own session and started within 10 s after the leader.
 */
export function findForkedWorkers(leader: LeaderRecord): ProcessIdentity[] {
  const found = new Map<number, ProcessIdentity>();
  const add = (pid: number) => {
    const identity = identityOf(pid);
    if (identity && sameArgv(identity.cmdline, leader.cmdline)) found.set(pid, identity);
  };

  if (isSameRunningProcess(leader)) {
    for (const child of childrenOf(leader.pid)) add(child.pid);
    return [...found.values()];
  }
  if (leader.cwd === undefined) return [];
  for (const proc of listProcesses()) {
    if (proc.pid === leader.pid || proc.session !== proc.pid) continue;
    const age = proc.startTime - leader.startTime;
    if (age < 0 || age > ORPHAN_START_WINDOW_TICKS) continue;
    if (readCwd(proc.pid) !== leader.cwd) continue;
    add(proc.pid);
  }
  return [...found.values()];
}
