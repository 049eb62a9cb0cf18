import { resolve } from 'node:path';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UnreachableError } from '../../cli/errors.js';
import { cliEntryPath } from '../../cli/meta.js';
import { logTail, pollUntil, reachableUrl, spawnDetached, type DetachedDaemon } from '../../client/daemon-process.js';
import { readPidRecord, readPidRecords, recordedProcess, removePidRecord, type PidRecord } from '../../config/pid-file.js';
import { getServerVersion } from '../../client/version.js';
import type { DaemonFlags } from '../../daemon/settings.js';
import { parseSeconds } from '../shared/options.js';
import { addDaemonFlags, checkedExposure, daemonSettings, toDaemonFlags, type DaemonFlagValues } from './flags.js';

/** Options of `daemon start`. */
export interface DaemonStartOptions {
  flags: DaemonFlags;
  /** How long to wait for the daemon to answer, in seconds. */
  timeout: number;
}

/** `emuctl daemon start [flags] [--timeout S]`: the daemon in the background. */
export function daemonStartCommand(f: Factory, run = runDaemonStart): Command {
  return addDaemonFlags(new Command('start'))
    .description('start the daemon in the background (pid file and log file under the emuctl home)')
    .option('--timeout <seconds>', 'how long to wait for the daemon to answer', parseSeconds, 10)
    .action(async (values: DaemonFlagValues & { timeout: number }, cmd: Command) => {
      const ctx = await f.context(cmd);
      const { timeout, ...flags } = values;
      await run({ flags: toDaemonFlags(flags, ctx.globals), timeout }, ctx);
    });
}

/** Daemon flags whose value is a path: the child gets it absolute (it runs from another directory). */
const PATH_FLAGS = new Set<keyof DaemonFlags>(['projectsDir', 'config', 'authPasswordFile', 'imagesDir', 'tlsCert', 'tlsKey', 'webUi']);
/** Repeatable options are named in the singular; DaemonFlags holds their lists in the plural. */
const LIST_FLAGS: Record<string, keyof DaemonFlags> = { corsOrigin: 'corsOrigins', allowedHost: 'allowedHosts' };

/**
 * The `daemon run` arguments for the detached child: every daemon option the user gave (read from
 * the option definitions `daemon run` shares, so none is forgotten), paths absolute, the port and
 * log file fixed.
 */
export function childArgs(flags: DaemonFlags, port: number, logFile: string): string[] {
  const args = ['daemon', 'run', '--port', String(port), '--log-file', resolve(logFile)];
  for (const option of addDaemonFlags(new Command()).options) {
    const name = option.attributeName();
    const key = (LIST_FLAGS[name] ?? name) as keyof DaemonFlags;
    const value = flags[key];
    if (key === 'port' || key === 'logFile' || value === undefined || value === false) continue;
    if (Array.isArray(value)) for (const item of value) args.push(option.long!, String(item));
    else if (value === true) args.push(option.long!);
    else args.push(option.long!, PATH_FLAGS.has(key) ? resolve(String(value)) : String(value));
  }
  if (flags.debug) args.push('--debug');
  return args;
}

type StartOutcome = { ok: true; version?: string; url: string; pidFile: string } | { ok: false; reason: string };

/** The pid file our child wrote: on its port's file, or (with --port 0) on whichever port it got. */
function childPidFile(ctx: Context, port: number, pid: number): { file: string; record: PidRecord } | undefined {
  if (port !== 0) {
    const record = readPidRecord(ctx.paths.pidFile(port));
    return record?.pid === pid ? { file: ctx.paths.pidFile(port), record } : undefined;
  }
  return readPidRecords(ctx.paths.runDir).find(({ record }) => record.pid === pid);
}

/** How the child is reached: its address, and with TLS the fingerprint of the certificate it was given. */
interface ChildAddress {
  host: string;
  port: number;
  fingerprint?: string;
}

/** Waits until the child has written its pid file and answers GET /v2/version, or exits, or time runs out. */
async function waitForStart(ctx: Context, daemon: DetachedDaemon, { host, port, fingerprint }: ChildAddress, timeoutMs: number): Promise<StartOutcome> {
  let exitReason: string | undefined;
  void daemon.exited.then((reason) => (exitReason = reason));
  const outcome = await pollUntil<StartOutcome>(async () => {
    if (exitReason) return { ok: false, reason: `it ended (${exitReason})` };
    // The pid file names our child only once it listens: a foreign server on the port does not count.
    const written = childPidFile(ctx, port, daemon.child.pid!);
    if (!written) return undefined;
    const url = reachableUrl(host, Number(new URL(written.record.url).port), fingerprint ? 'https' : 'http');
    const api = await ctx.apiFor({ url, retries: 0, timeoutMs: 1000, trust: { fingerprint } });
    try {
      return { ok: true, version: (await getServerVersion(api)).version, url, pidFile: written.file };
    } catch (err) {
      if (err instanceof UnreachableError) return undefined;
      return { ok: true, url, pidFile: written.file }; // it answered, e.g. 401 because auth is on
    }
  }, timeoutMs);
  return outcome ?? { ok: false, reason: `no answer within ${timeoutMs / 1000} s` };
}

/** Starts the daemon detached and waits for it; on failure prints the log tail and fails. With port 0 it reports the port it got. */
export async function runDaemonStart(opts: DaemonStartOptions, ctx: Context): Promise<void> {
  const settings = await daemonSettings(ctx, opts.flags);
  // Refused settings and unusable TLS files fail here (exit 2), not in a child's log.
  const tls = await checkedExposure(settings);
  if (settings.port !== 0) {
    const pidFile = ctx.paths.pidFile(settings.port);
    const existing = readPidRecord(pidFile);
    const state = existing ? recordedProcess(existing) : 'gone';
    if (existing && (state === 'daemon' || state === 'unverified')) {
      ctx.out.result({ started: false, running: true, pid: existing.pid, url: existing.url, pidFile },
        () => `emuctl daemon already running on ${existing.url} (pid ${existing.pid})\n`);
      return;
    }
    if (existing) removePidRecord(pidFile);
  }

  const logFile = settings.logFile ?? ctx.paths.logFile(settings.port);
  const protocol = tls ? 'https' : 'http';
  const where = settings.port === 0 ? `${reachableUrl(settings.host, 0, protocol).replace(/:0$/, '')} (any free port)` : reachableUrl(settings.host, settings.port, protocol);
  const daemon = spawnDetached(cliEntryPath(), childArgs(opts.flags, settings.port, logFile), logFile, ctx.env);
  const outcome = await ctx.out.spin(`Starting emuctl daemon on ${where}`,
    () => waitForStart(ctx, daemon, { host: settings.host, port: settings.port, fingerprint: tls?.fingerprint }, opts.timeout * 1000));

  if (!outcome.ok) {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGTERM');
    const tail = logTail(logFile, daemon.logOffset);
    if (tail.length) ctx.out.writeErr(`last lines of ${logFile}:\n${tail.map((line) => `  ${line}`).join('\n')}\n`);
    throw new OperationError(`the daemon did not start: ${outcome.reason}; full log in ${logFile}`);
  }
  daemon.child.unref();
  const pid = daemon.child.pid!;
  const { url, pidFile } = outcome;
  ctx.out.result({ started: true, running: true, pid, url, port: Number(new URL(url).port), version: outcome.version, pidFile, logFile, fingerprint: tls?.fingerprint });
  ctx.out.success(`Started emuctl daemon on ${url} (pid ${pid}${outcome.version ? `, version ${outcome.version}` : ''}); log: ${logFile}`);
  if (tls) ctx.out.success(`TLS certificate SHA256 fingerprint: ${tls.fingerprint}`);
}
