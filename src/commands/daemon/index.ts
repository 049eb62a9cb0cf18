import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { daemonRunCommand } from './run.js';
import { daemonStartCommand } from './start.js';
import { daemonStatusCommand } from './status.js';
import { daemonStopCommand } from './stop.js';

/** `emuctl daemon …`: the local daemon's life cycle. */
export function daemonCommand(f: Factory): Command {
  return new Command('daemon')
    .description('run, start, stop and inspect the local emuctl daemon')
    .addCommand(daemonStartCommand(f))
    .addCommand(daemonStopCommand(f))
    .addCommand(daemonStatusCommand(f))
    .addCommand(daemonRunCommand(f));
}
