import type { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { nodePowerCommand, runNodePower, type NodePowerOptions } from './power.js';

/** Options of `node start`. */
export type NodeStartOptions = NodePowerOptions;

/** `emuctl node start (N | --all) [-p P]`. */
export function nodeStartCommand(f: Factory, run = runNodeStart): Command {
  return nodePowerCommand('start', f, run);
}

/** Starts the node (POST …/nodes/{node_id}/start), or all of them (POST …/nodes/start). */
export function runNodeStart(opts: NodeStartOptions, ctx: Context): Promise<void> {
  return runNodePower('start', opts, ctx);
}
