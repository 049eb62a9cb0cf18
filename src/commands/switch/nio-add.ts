import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { addSwitchNio } from '../../client/switches.js';
import { parsePort } from '../shared/options.js';
import { projectOption } from '../shared/project.js';
import { nioTarget } from './address.js';
import { parsePortNumber } from './parse.js';
import { nioText } from './render.js';

/** Options of `switch nio add`. */
export interface SwitchNioAddOptions {
  switch: string;
  port: number;
  adapter: number;
  lport: number;
  rhost: string;
  rport: number;
  project?: string;
}

/** `emuctl switch nio add SW PORT --lport N --rhost H --rport N [--adapter 0] [-p P]`. */
export function switchNioAddCommand(f: Factory, run = runSwitchNioAdd): Command {
  return new Command('add')
    .description("connect a switch port to a UDP tunnel (a nio_udp on the server's compute)")
    .argument('<switch>', 'switch UUID (used as given), or name or unique UUID prefix')
    .argument('<port>', 'port number', parsePortNumber)
    .addOption(new Option('--lport <port>', 'local UDP port the switch port binds').argParser(parsePort).makeOptionMandatory())
    .addOption(new Option('--rhost <host>', 'remote host the frames are sent to').makeOptionMandatory())
    .addOption(new Option('--rport <port>', 'remote UDP port the frames are sent to').argParser(parsePort).makeOptionMandatory())
    .addOption(new Option('--adapter <n>', 'adapter number (switches have adapter 0 only)').argParser(parsePortNumber).default(0))
    .addOption(projectOption())
    .action(async (ref: string, port: number, flags: Omit<SwitchNioAddOptions, 'switch' | 'port'>, cmd: Command) =>
      run({ switch: ref, port, adapter: flags.adapter, lport: flags.lport, rhost: flags.rhost, rport: flags.rport, project: flags.project },
        await f.context(cmd)));
}

/** Adds the NIO (POST /v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{a}/ports/{p}/nio) and prints it. */
export async function runSwitchNioAdd(opts: SwitchNioAddOptions, ctx: Context): Promise<void> {
  const { at, label } = await nioTarget(ctx, 'add', opts.switch, opts.project);
  const nio = await addSwitchNio(await ctx.api(), at, opts.adapter, opts.port, { lport: opts.lport, rhost: opts.rhost, rport: opts.rport });
  ctx.out.result(nio);
  ctx.out.success(`Port ${opts.adapter}/${opts.port} of switch ${label}: ${nio.type} ${nioText(nio)}`);
}
