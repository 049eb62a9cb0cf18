import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { computeIdFor } from '../../client/nodes.js';
import { accessPorts, createSwitch } from '../../client/switches.js';
import { warnIfRenamed } from '../shared/node-name.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { MAX_SWITCH_PORTS, parsePortCount } from './parse.js';
import { portsOf, switchLabel } from './render.js';

/** Options of `switch create`. */
export interface SwitchCreateOptions {
  name: string;
  /** Number of access ports Ethernet0..N-1 in VLAN 1. */
  ports: number;
  /** Compute name or id; `local` when absent. */
  compute?: string;
  project?: string;
}

/** `emuctl switch create NAME [--ports N] [--compute C] [-p P]`. */
export function switchCreateCommand(f: Factory, run = runSwitchCreate): Command {
  return new Command('create')
    .description('create an Ethernet switch (on the local compute unless --compute)')
    .argument('<name>', 'switch name')
    .addOption(new Option('--ports <n>', `number of access ports Ethernet0..N-1 in VLAN 1 (1-${MAX_SWITCH_PORTS})`).argParser(parsePortCount).default(8))
    .option('-c, --compute <compute>', 'compute to run it on, by name or id (default: local)')
    .addOption(projectOption())
    .action(async (name: string, flags: { ports: number; compute?: string; project?: string }, cmd: Command) =>
      run({ name, ports: flags.ports, compute: flags.compute, project: flags.project }, await f.context(cmd)));
}

/** Creates the switch (POST /v2/projects/{project_id}/nodes) and reports it. */
export async function runSwitchCreate(opts: SwitchCreateOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const node = await createSwitch(api, project.project_id, { name: opts.name, computeId: await computeIdFor(api, opts.compute), ports_mapping: accessPorts(opts.ports) });
  warnIfRenamed(ctx, opts.name, node.name);
  ctx.out.result(node);
  ctx.out.success(`Created switch ${switchLabel(node)} with ${portsOf(node).length} ports in project ${project.name}`);
}
