import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { computeIdFor, createNode } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { nodeLabel } from './render.js';

/** Options of `node create`. */
export interface NodeCreateOptions {
  name: string;
  /** GNS3 node_type: ethernet_switch, ethernet_hub, vpcs (a remote GNS3 server knows more). */
  type: string;
  /** Compute name or id; `local` when absent. */
  compute?: string;
  project?: string;
}

/** `emuctl node create NAME --type T [--compute C] [-p P]`. */
export function nodeCreateCommand(f: Factory, run = runNodeCreate): Command {
  return new Command('create')
    .description('create a node (ethernet_switch, ethernet_hub or vpcs)')
    .argument('<name>', 'name of the new node')
    .addOption(new Option('-t, --type <type>', 'node type: ethernet_switch, ethernet_hub or vpcs').makeOptionMandatory())
    .option('-c, --compute <compute>', 'compute to run it on, by name or id (default: local)')
    .addOption(projectOption())
    .action(async (name: string, flags: { type: string; compute?: string; project?: string }, cmd: Command) =>
      run({ name, type: flags.type, compute: flags.compute, project: flags.project }, await f.context(cmd)));
}

/** Creates the node (POST /v2/projects/{project_id}/nodes) and reports it. */
export async function runNodeCreate(opts: NodeCreateOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const node = await createNode(api, project.project_id, { name: opts.name, node_type: opts.type, compute_id: await computeIdFor(api, opts.compute) });
  ctx.out.result(node);
  ctx.out.success(`Created ${node.node_type} ${nodeLabel(node)} on compute ${node.compute_id}`);
}
