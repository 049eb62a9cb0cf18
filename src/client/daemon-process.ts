import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { OperationError, UsageError } from './errors.js';
import type { ProcessIdentity } from '../util/proc-info.js';
import { signalIfSame, waitUntilGone } from '../util/process-termination.js';
import { reachableHost } from '../util/reachable-host.js';

/** Polls `check` every `intervalMs` until it returns a value other than undefined, or `timeoutMs` passes. */
export async function pollUntil<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs: number, intervalMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Sends SIGTERM and waits for the exit; after `timeoutMs`, SIGKILL. Each signal goes only to the same
 * process (pid, start time and command line still match), never to one that reused the pid. Says which one ended it.
 */
export async function terminate(daemon: ProcessIdentity, timeoutMs: number): Promise<'stopped' | 'killed' | 'gone'> {
  if (!signalIfSame(daemon, 'SIGTERM')) return 'gone';
  if (await waitUntilGone([daemon], timeoutMs)) return 'stopped';
  if (!signalIfSame(daemon, 'SIGKILL')) return 'stopped';
  await waitUntilGone([daemon], 5000);
  return 'killed';
}

/** A daemon process started detached, its output appended to a log file. */
export interface DetachedDaemon {
  child: ChildProcess;
  /** Size of the log file before the start: the tail after it is this run's output. */
  logOffset: number;
  /** Resolves with a description of how the process ended (if it ends). */
  exited: Promise<string>;
}

/** Starts `node <entry> args…` in its own session, stdout and stderr appended to `logFile`. */
export function spawnDetached(entry: string, args: string[], logFile: string, env: NodeJS.ProcessEnv): DetachedDaemon {
  mkdirSync(dirname(logFile), { recursive: true });
  let logOffset = 0;
  try {
    logOffset = statSync(logFile).size;
  } catch {
    // a new log file
  }
  const fd = openSync(logFile, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [entry, ...args], { detached: true, stdio: ['ignore', fd, fd], env });
    const exited = new Promise<string>((resolve) => {
      child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
      child.once('error', (err) => resolve(err.message));
    });
    return { child, logOffset, exited };
  } finally {
    closeSync(fd);
  }
}

/** The last `lines` lines written to the log file since `offset`. */
export function logTail(logFile: string, offset: number, lines = 20): string[] {
  try {
    const text = readFileSync(logFile).subarray(offset).toString('utf8');
    return text.split('\n').filter((line) => line.trim() !== '').slice(-lines);
  } catch {
    return [];
  }
}

/** Maps errors of the daemon's own code (settings, listen) to CLI errors: invalid settings are usage errors. */
export function toDaemonCliError(err: unknown): Error {
  if (!(err instanceof Error)) return new OperationError(String(err));
  if ((err as { status?: number }).status === 400) return new UsageError(err.message);
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new UsageError(err.message);
  return new OperationError(err.message);
}

/** A URL that reaches a daemon bound to `host` (a wildcard address is reached on loopback). */
export function reachableUrl(host: string, port: number, protocol: 'http' | 'https' = 'http'): string {
  const target = host === '' ? '127.0.0.1' : reachableHost(host);
  return `${protocol}://${target.includes(':') ? `[${target}]` : target}:${port}`;
}
