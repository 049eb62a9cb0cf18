import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { deleteSwitch } from '../../client/switches.js';
import { projectOption } from '../shared/project.js';
import { resolveSwitch } from './address.js';
import { switchLabel } from './render.js';

/** Options of `switch delete`. */
export interface SwitchDeleteOptions {
  switch: string;
  project?: string;
}

/** `emuctl switch delete SW [-p P]`. */
export function switchDeleteCommand(f: Factory, run = runSwitchDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a switch (and the links to it)')
    .argument('<switch>', 'switch name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (ref: string, flags: { project?: string }, cmd: Command) =>
      run({ switch: ref, project: flags.project }, await f.context(cmd)));
}

/** Deletes the switch (DELETE /v2/projects/{project_id}/nodes/{node_id}). */
export async function runSwitchDelete(opts: SwitchDeleteOptions, ctx: Context): Promise<void> {
  const node = await resolveSwitch(ctx, opts.switch, opts.project);
  await deleteSwitch(await ctx.api(), node.project_id, node.node_id);
  ctx.out.result({ deleted: true, node_id: node.node_id, name: node.name });
  ctx.out.success(`Deleted switch ${switchLabel(node)}`);
}
