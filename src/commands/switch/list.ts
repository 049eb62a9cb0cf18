import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listSwitches } from '../../client/switches.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { switchTable } from './render.js';
import { sortedByName } from '../../render/sort.js';

/** Options of `switch list`. */
export interface SwitchListOptions {
  project?: string;
}

/** `emuctl switch list [-p P]`. */
export function switchListCommand(f: Factory, run = runSwitchList): Command {
  return new Command('list')
    .alias('ls')
    .description("list the Ethernet switches of a project")
    .addOption(projectOption())
    .action(async (flags: { project?: string }, cmd: Command) => run({ project: flags.project }, await f.context(cmd)));
}

/** Lists the switches: a table sorted by name, or the server's node objects (switches only) with --json. */
export async function runSwitchList(opts: SwitchListOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const switches = await listSwitches(await ctx.api(), project.project_id);
  const byName = sortedByName(switches, (s) => s.name);
  ctx.out.result(switches, () => (byName.length ? switchTable(byName, ctx.out.style) : `no switches in project ${project.name}\n`));
}
