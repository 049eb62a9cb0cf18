import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { EXIT_FAILURE, EXIT_UNREACHABLE, SilentExit, UnreachableError } from '../../cli/errors.js';
import { readPidRecord, recordedProcess } from '../../config/pid-file.js';
import { getServerVersion } from '../../client/version.js';
import { renderFields } from '../../render/table.js';
import { daemonPortOption, daemonSettings } from './flags.js';

/** Options of `daemon status`. */
export interface DaemonStatusOptions {
  port?: number;
}

/** `emuctl daemon status [--port P]`. */
export function daemonStatusCommand(f: Factory, run = runDaemonStatus): Command {
  return new Command('status')
    .description('is the daemon running? pid, URL, version, uptime (exit 0 running, 3 not running, 1 not answering)')
    .addOption(daemonPortOption())
    .action(async (flags: { port?: number }, cmd: Command) => run({ port: flags.port }, await f.context(cmd)));
}

/** "2d 3h", "4h 5m", "6m 7s" or "8s". */
export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400), h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60), s = Math.floor(seconds % 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  return m ? `${m}m ${s}s` : `${s}s`;
}

/** The version the daemon reports, 'auth required' when it wants credentials, or undefined if it does not answer. */
async function answeringVersion(ctx: Context, url: string, fingerprint: string | undefined): Promise<string | undefined> {
  const profile = ctx.profile();
  const sameServer = profile.url === url;
  // Its pid file, which the daemon wrote in this user's run directory, says which certificate it serves.
  const api = await ctx.apiFor({ url, retries: 0, timeoutMs: 2000, user: sameServer ? profile.user : undefined, password: sameServer ? profile.password : undefined, trust: { fingerprint } });
  try {
    return (await getServerVersion(api)).version;
  } catch (err) {
    if (err instanceof UnreachableError) return undefined;
    return 'unknown (auth required)';
  }
}

/** Reports the daemon of a port. Exit 0 running, 3 not running (like LSB "program is not running"), 1 running but not answering. */
export async function runDaemonStatus(opts: DaemonStatusOptions, ctx: Context): Promise<void> {
  const { port } = await daemonSettings(ctx, { port: opts.port });
  const pidFile = ctx.paths.pidFile(port);
  const record = readPidRecord(pidFile);
  const state = record ? recordedProcess(record) : 'gone';
  if (!record || state === 'gone' || state === 'other') {
    ctx.out.result({ running: false, port, pidFile }, () => `emuctl daemon on port ${port}: ${ctx.out.style.dim('not running')}\n`);
    throw new SilentExit(EXIT_UNREACHABLE);
  }
  const version = await answeringVersion(ctx, record.url, record.fingerprint);
  const started = Date.parse(record.startedAt);
  const uptimeSeconds = Number.isNaN(started) ? undefined : Math.max(0, Math.round((Date.now() - started) / 1000));
  const status = { running: true, answering: version !== undefined, pid: record.pid, url: record.url, port,
    version, startedAt: record.startedAt, uptimeSeconds, pidFile, logFile: ctx.paths.logFile(port) };
  const style = ctx.out.style;
  ctx.out.result(status, () => renderFields([
    ['status', version !== undefined ? style.green('running') : style.red('running, not answering')],
    ['pid', String(record.pid)],
    ['url', record.url],
    ['version', version ?? '-'],
    ['uptime', uptimeSeconds === undefined ? '-' : formatUptime(uptimeSeconds)],
    ['started', record.startedAt || '-'],
    ['log', status.logFile],
  ], style));
  if (version === undefined) throw new SilentExit(EXIT_FAILURE);
}
