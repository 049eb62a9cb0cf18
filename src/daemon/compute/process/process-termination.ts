import { setTimeout as sleep } from 'node:timers/promises';
import { isSameRunningProcess, readProcStat, type ProcessIdentity } from './proc-info.js';

/** Default time a process gets to end after SIGTERM before SIGKILL. */
export const DEFAULT_GRACE_MS = 3000;

/** How long to wait for processes to vanish after SIGKILL. */
const KILL_WAIT_MS = 2000;

const POLL_MS = 25;

/** Sends `signal` to a process (or, with `group`, to its process group) only if it is still the same process. */
export function signalIfSame(identity: ProcessIdentity, signal: NodeJS.Signals, group = false): boolean {
  if (!isSameRunningProcess(identity)) return false;
  try {
    if (group && readProcStat(identity.pid)?.pgrp === identity.pid) process.kill(-identity.pid, signal);
    else process.kill(identity.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Waits until none of `identities` names a running process; false when `timeoutMs` passed first. */
export async function waitUntilGone(identities: ProcessIdentity[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!identities.some(isSameRunningProcess)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/** What a termination had to do. */
export interface TerminationResult {
  /** True when something was still running after the grace period and got SIGKILL. */
  forced: boolean;
  /** True when every process is gone at the end. */
  gone: boolean;
}

/**
 * Stops a leader and the workers it forked: SIGTERM the leader (or, when the leader is already gone,
 * the orphaned workers), wait up to `graceMs`, then SIGKILL the leader's process group, the leader and
 * every worker still running. Identities are re-checked before each signal, so a recycled PID is never hit.
 */
export async function terminateProcessTree(
  leader: ProcessIdentity | undefined,
  workers: ProcessIdentity[],
  graceMs = DEFAULT_GRACE_MS,
): Promise<TerminationResult> {
  const all = leader ? [leader, ...workers] : workers;
  const leaderRunning = leader !== undefined && signalIfSame(leader, 'SIGTERM');
  // VPCS workers end by themselves when their parent gets SIGTERM; an orphaned worker needs its own.
  if (!leaderRunning) for (const worker of workers) signalIfSame(worker, 'SIGTERM');
  if (await waitUntilGone(all, graceMs)) return { forced: false, gone: true };

  if (leader) signalIfSame(leader, 'SIGKILL', true);
  for (const worker of workers) {
    signalIfSame(worker, 'SIGKILL', true);
    signalIfSame(worker, 'SIGKILL');
  }
  return { forced: true, gone: await waitUntilGone(all, KILL_WAIT_MS) };
}
