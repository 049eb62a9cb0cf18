import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { switchMacTable } from '../../client/switches.js';
import { projectOption } from '../shared/project.js';
import { addressOf, resolveSwitch } from './address.js';
import { macTable, portsOf } from './render.js';

/** Options of `switch mac-table`. */
export interface SwitchMacTableOptions {
  switch: string;
  project?: string;
}

/** `emuctl switch mac-table SW [-p P]`. */
export function switchMacTableCommand(f: Factory, run = runSwitchMacTable): Command {
  return new Command('mac-table')
    .description('show the MAC addresses a switch has learned (per VLAN, with their port and age)')
    .argument('<switch>', 'switch name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (ref: string, flags: { project?: string }, cmd: Command) =>
      run({ switch: ref, project: flags.project }, await f.context(cmd)));
}

/** Shows the MAC table (GET …/ethernet_switch/nodes/{node_id}/mac_table on the switch's compute). */
export async function runSwitchMacTable(opts: SwitchMacTableOptions, ctx: Context): Promise<void> {
  const node = await resolveSwitch(ctx, opts.switch, opts.project);
  const entries = await switchMacTable(await ctx.api(), addressOf(node));
  ctx.out.result(entries, () => (entries.length ? macTable(entries, portsOf(node), ctx.out.style) : `no MAC addresses learned by ${node.name}\n`));
}
