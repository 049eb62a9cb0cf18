import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { getSwitch, switchStats, type PortStats } from '../../client/switches.js';
import { projectOption } from '../shared/project.js';
import { addressOf, resolveSwitch } from './address.js';
import { switchDetails } from './render.js';

/** Options of `switch show`. */
export interface SwitchShowOptions {
  switch: string;
  project?: string;
}

/** `emuctl switch show SW [-p P]`. */
export function switchShowCommand(f: Factory, run = runSwitchShow): Command {
  return new Command('show')
    .description("show a switch's ports: type, VLAN, NIO and counters")
    .argument('<switch>', 'switch name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (ref: string, flags: { project?: string }, cmd: Command) =>
      run({ switch: ref, project: flags.project }, await f.context(cmd)));
}

/**
 * Shows the switch (from the controller) and its ports' NIOs and counters (from
 * its compute's stats route). A compute without that route (e.g. GNS3 itself)
 * costs only the counters: a warning, and `stats: null` in the JSON.
 */
export async function runSwitchShow(opts: SwitchShowOptions, ctx: Context): Promise<void> {
  const found = await resolveSwitch(ctx, opts.switch, opts.project);
  const api = await ctx.api();
  const node = await getSwitch(api, found.project_id, found.node_id);
  let stats: PortStats[] | null = null;
  try {
    stats = await switchStats(api, addressOf(node));
  } catch (err) {
    if (!(err instanceof OperationError)) throw err;
    ctx.out.warn(`no port counters for ${node.name}: ${err.message}`);
  }
  ctx.out.result({ ...node, stats }, () => switchDetails(node, stats ?? undefined, ctx.out.style));
}
