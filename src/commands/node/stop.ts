import type { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { nodePowerCommand, runNodePower, type NodePowerOptions } from './power.js';

/** Options of `node stop`. */
export type NodeStopOptions = NodePowerOptions;

/** `emuctl node stop (N | --all) [-p P]`. */
export function nodeStopCommand(f: Factory, run = runNodeStop): Command {
  return nodePowerCommand('stop', f, run);
}

/** Stops the node (POST …/nodes/{node_id}/stop), or all of them (POST …/nodes/stop). */
export function runNodeStop(opts: NodeStopOptions, ctx: Context): Promise<void> {
  return runNodePower('stop', opts, ctx);
}
