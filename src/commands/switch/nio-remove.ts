import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { removeSwitchNio } from '../../client/switches.js';
import { projectOption } from '../shared/project.js';
import { nioTarget } from './address.js';
import { parsePortNumber } from './parse.js';

/** Options of `switch nio remove`. */
export interface SwitchNioRemoveOptions {
  switch: string;
  port: number;
  adapter: number;
  project?: string;
}

/** `emuctl switch nio remove SW PORT [--adapter 0] [-p P]`. */
export function switchNioRemoveCommand(f: Factory, run = runSwitchNioRemove): Command {
  return new Command('remove')
    .alias('rm')
    .description("disconnect a switch port from its UDP tunnel (closes the socket, frees the port)")
    .argument('<switch>', 'switch UUID (used as given), or name or unique UUID prefix')
    .argument('<port>', 'port number', parsePortNumber)
    .addOption(new Option('--adapter <n>', 'adapter number (switches have adapter 0 only)').argParser(parsePortNumber).default(0))
    .addOption(projectOption())
    .action(async (ref: string, port: number, flags: { adapter: number; project?: string }, cmd: Command) =>
      run({ switch: ref, port, adapter: flags.adapter, project: flags.project }, await f.context(cmd)));
}

/** Removes the NIO (DELETE on the compute's NIO route). */
export async function runSwitchNioRemove(opts: SwitchNioRemoveOptions, ctx: Context): Promise<void> {
  const { at, label } = await nioTarget(ctx, 'remove', opts.switch, opts.project);
  await removeSwitchNio(await ctx.api(), at, opts.adapter, opts.port);
  ctx.out.result({ removed: true, project_id: at.projectId, node_id: at.nodeId, adapter_number: opts.adapter, port_number: opts.port });
  ctx.out.success(`Removed the NIO of port ${opts.adapter}/${opts.port} of switch ${label}`);
}
