import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { toDaemonCliError } from '../../client/daemon-process.js';
import type { DaemonFlags } from '../../daemon/settings.js';
import { addDaemonFlags, toDaemonFlags, type DaemonFlagValues } from './flags.js';

/** Options of `daemon run`. */
export interface DaemonRunOptions {
  flags: DaemonFlags;
}

/** `emuctl daemon run [flags]`: the daemon in the foreground. */
export function daemonRunCommand(f: Factory, run = runDaemonRun): Command {
  return addDaemonFlags(new Command('run'))
    .description('run the daemon in the foreground until SIGTERM or SIGINT (Ctrl-C)')
    .action(async (values: DaemonFlagValues, cmd: Command) => {
      const ctx = await f.context(cmd);
      await run({ flags: toDaemonFlags(values, ctx.globals) }, ctx);
    });
}

/** Starts the daemon in this process, says where it listens (the real port with --port 0), and returns once it has shut down gracefully. */
export async function runDaemonRun(opts: DaemonRunOptions, ctx: Context): Promise<void> {
  const { startDaemon } = await import('../../daemon/main.js');
  let daemon;
  try {
    daemon = await startDaemon(opts.flags, ctx.env);
  } catch (err) {
    throw toDaemonCliError(err);
  }
  const { url, port, fingerprint } = daemon;
  const pidFile = daemon.settings.paths.pidFile(port);
  const tls = fingerprint ? `, TLS certificate SHA256 fingerprint: ${fingerprint}` : '';
  ctx.out.result({ running: true, pid: process.pid, url, port, pidFile, fingerprint }, () => `emuctl daemon listening on ${url} (pid ${process.pid}, pid file ${pidFile}${tls})\n`);
  await daemon.closed;
}
