import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { deleteNode, resolveNode } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { nodeLabel } from './render.js';

/** Options of `node delete`. */
export interface NodeDeleteOptions {
  node: string;
  project?: string;
}

/** `emuctl node delete N [-p P]`. */
export function nodeDeleteCommand(f: Factory, run = runNodeDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a node and its links')
    .argument('<node>', 'node name, UUID or unique UUID prefix')
    .addOption(projectOption())
    .action(async (node: string, flags: { project?: string }, cmd: Command) =>
      run({ node, project: flags.project }, await f.context(cmd)));
}

/** Deletes the node (DELETE /v2/projects/{project_id}/nodes/{node_id}). */
export async function runNodeDelete(opts: NodeDeleteOptions, ctx: Context): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const node = await resolveNode(api, project_id, opts.node);
  await deleteNode(api, project_id, node.node_id);
  ctx.out.result({ deleted: true, node_id: node.node_id, name: node.name });
  ctx.out.success(`Deleted node ${nodeLabel(node)}`);
}
