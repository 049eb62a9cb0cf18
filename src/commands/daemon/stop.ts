import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { terminate } from '../../client/daemon-process.js';
import { isProcessAlive, readPidRecord, removePidRecord } from '../../config/pid-file.js';
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

/** Stops the daemon named by the pid file of its port. Stopping a daemon that is not running succeeds. */
export async function runDaemonStop(opts: DaemonStopOptions, ctx: Context): Promise<void> {
  const { port } = await daemonSettings(ctx, { port: opts.port });
  const pidFile = ctx.paths.pidFile(port);
  const record = readPidRecord(pidFile);
  if (!record || !isProcessAlive(record.pid)) {
    if (record) removePidRecord(pidFile);
    ctx.out.result({ stopped: false, running: false, port },
      () => `emuctl daemon on port ${port} is not running${record ? ' (removed a stale pid file)' : ''}\n`);
    return;
  }
  const how = await terminate(record.pid, opts.timeout * 1000);
  // After SIGKILL the daemon could not remove its own pid file.
  if (how === 'killed') removePidRecord(pidFile);
  ctx.out.result({ stopped: true, forced: how === 'killed', pid: record.pid, url: record.url, port });
  if (how === 'killed') ctx.out.warn(`the daemon (pid ${record.pid}) did not stop within ${opts.timeout} s; killed it with SIGKILL`);
  else ctx.out.success(`Stopped emuctl daemon on ${record.url} (pid ${record.pid})`);
}
