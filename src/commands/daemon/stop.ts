import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { terminate } from '../../client/daemon-process.js';
import { OperationError } from '../../cli/errors.js';
import { readPidRecord, recordedProcess, recordIdentity, removePidRecord } from '../../config/pid-file.js';
import { parseSeconds } from '../shared/options.js';
import { daemonPortOption, daemonSettings } from './flags.js';

/** Options of `daemon stop`. */
export interface DaemonStopOptions {
  port?: number;
  /** Seconds to wait after SIGTERM before SIGKILL. */
  timeout: number;
}

/** `emuctl daemon stop [--port P] [--timeout S]`. */
export function daemonStopCommand(f: Factory, run = runDaemonStop): Command {
  return new Command('stop')
    .description('stop a background daemon: SIGTERM, wait for a graceful stop, SIGKILL after the timeout')
    .addOption(daemonPortOption())
    .option('--timeout <seconds>', 'how long to wait for a graceful stop before SIGKILL', parseSeconds, 10)
    .action(async (flags: { port?: number; timeout: number }, cmd: Command) =>
      run({ port: flags.port, timeout: flags.timeout }, await f.context(cmd)));
}

/**
 * Stops the daemon named by the pid file of its port, after checking that the pid still runs the
 * process that wrote the file (start time and command line). Stopping a daemon that is not running succeeds.
 */
export async function runDaemonStop(opts: DaemonStopOptions, ctx: Context): Promise<void> {
  const { port } = await daemonSettings(ctx, { port: opts.port });
  const pidFile = ctx.paths.pidFile(port);
  const record = readPidRecord(pidFile);
  const state = record ? recordedProcess(record) : 'gone';
  if (!record || state === 'gone' || state === 'other') {
    if (record) removePidRecord(pidFile);
    const stale = !record ? '' : state === 'other' ? ` (removed a stale pid file: pid ${record.pid} is now another process, left alone)` : ' (removed a stale pid file)';
    ctx.out.result({ stopped: false, running: false, port }, () => `emuctl daemon on port ${port} is not running${stale}\n`);
    return;
  }
  const identity = recordIdentity(record);
  if (!identity) {
    throw new OperationError(`${pidFile} names pid ${record.pid} without its start time and command line (an older emuctl wrote it), so it is not signalled: if that process is the daemon, stop it with 'kill ${record.pid}'`);
  }
  const how = await terminate(identity, opts.timeout * 1000);
  // After SIGKILL the daemon could not remove its own pid file.
  if (how === 'killed') removePidRecord(pidFile);
  ctx.out.result({ stopped: true, forced: how === 'killed', pid: record.pid, url: record.url, port });
  if (how === 'killed') ctx.out.warn(`the daemon (pid ${record.pid}) did not stop within ${opts.timeout} s; killed it with SIGKILL`);
  else ctx.out.success(`Stopped emuctl daemon on ${record.url} (pid ${record.pid})`);
}
