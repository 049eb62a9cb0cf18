import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { diskError } from '../../errors.js';
import { failpointArmed } from '../../failpoints.js';
import { identityOf, type ProcessIdentity } from '../../../util/proc-info.js';
import type { ProcessRegistry } from './process-registry.js';

/** How one emulator process is started. */
export interface LaunchOptions {
  /** Absolute path of the executable (it becomes argv[0], which the registry matches on). */
  binary: string;
  args: string[];
  cwd: string;
  /** File that receives stdout and stderr, appended to: output keeps flowing after a daemon crash. */
  logPath: string;
  registry?: ProcessRegistry;
  label?: string;
  /** The daemon's environment; the child gets only what `childEnvironment` keeps of it. */
  env?: NodeJS.ProcessEnv;
  /** Variables the child gets on top of `childEnvironment(env)` (they are not part of the recorded command line). */
  extraEnv?: Record<string, string>;
  /** Called when the process ends; attached before anything can miss the event. */
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface Launched {
  child: ChildProcess;
  identity: ProcessIdentity;
  /** Size of the log file before this run, so its own lines can be told apart. */
  logOffset: number;
}

/**
 * The environment of every child the daemon starts: PATH and a neutral locale, never the daemon's own
 * variables (which may hold EMUCTL_AUTH_PASSWORD or other secrets).
 */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' };
  if (env.TMPDIR) out.TMPDIR = env.TMPDIR;
  return out;
}

/**
 * Starts a process that may outlive the daemon, recorded so that it never does untracked:
 * write-ahead intent (argv and cwd) in the registry, spawn in a session of its own, then confirm
 * the intent with the PID and start time. A daemon killed between spawn and confirm leaves the
 * intent, by which its successor finds the process.
 */
export async function launchRecorded(o: LaunchOptions): Promise<Launched> {
  await mkdir(o.cwd, { recursive: true, mode: 0o700 });
  // The log is the owner's only (it holds what the program printed, a console's output among it), and so is one an older version left 0644.
  const log = await open(o.logPath, 'a', 0o600);
  let intentId: string | undefined;
  let logOffset = 0;
  try {
    await log.chmod(0o600);
    logOffset = (await log.stat()).size;
    await log.write(`--- ${new Date().toISOString()} ${o.binary} ${o.args.join(' ')}\n`);
    const cmdline = [o.binary, ...o.args];
    intentId = await o.registry?.intend({ cmdline, cwd: o.cwd, label: o.label });
    const child = spawn(o.binary, o.args, { cwd: o.cwd, detached: true, stdio: ['ignore', log.fd, log.fd], env: { ...childEnvironment(o.env), ...o.extraEnv } });
    child.once('exit', o.onExit);
    await Promise.race([once(child, 'spawn'), once(child, 'error').then(([err]) => { throw err; })]);
    if (failpointArmed('process.after-spawn')) process.kill(process.pid, 'SIGKILL');
    const pid = child.pid!;
    const identity = identityOf(pid) ?? { pid, startTime: -1, cmdline };
    if (intentId) await o.registry!.confirm(intentId, { ...identity, cwd: o.cwd, label: o.label, startedAt: new Date().toISOString(), workers: [] });
    return { child, identity, logOffset };
  } catch (err) {
    if (intentId) await o.registry?.dropIntent(intentId).catch(() => undefined);
    // A start that failed (a full disk) leaves the log as it found it, and no empty log behind.
    if (logOffset === 0) await unlink(o.logPath).catch(() => undefined);
    else await log.truncate(logOffset).catch(() => undefined);
    throw diskError(o.logPath, err);
  } finally {
    await log.close();
  }
}

/** The lines a process wrote to its log since `offset` (the launch header left out), at most `maxChars`. */
export async function logTail(path: string, offset: number, maxChars = 2000): Promise<string> {
  try {
    if ((await stat(path)).size <= offset) return '';
    const text = (await readFile(path)).subarray(offset).toString('utf8');
    return text.split('\n').filter((l) => l && !l.startsWith('--- ')).join('\n').slice(-maxChars).trim();
  } catch {
    return '';
  }
}
