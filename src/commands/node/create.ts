import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { createNode, resolveComputeId, type NodeCreate } from '../../client/nodes.js';
import { createNodeFromTemplate, findTemplate } from '../../client/templates.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { nodeLabel } from './render.js';

/** Options of `node create`: a node type or a template, one of the two. */
export interface NodeCreateOptions {
  name: string;
  /** GNS3 node_type: ethernet_switch, ethernet_hub, vpcs (a remote GNS3 server knows more). */
  type?: string;
  /** Template name or id (GNS3's way: the node gets the template's settings). */
  template?: string;
  /** Compute name or id; the server's default (`local`) when absent. */
  compute?: string;
  project?: string;
}

/** `emuctl node create NAME (--type T | --template T) [--compute C] [-p P]`. */
export function nodeCreateCommand(f: Factory, run = runNodeCreate): Command {
  return new Command('create')
    .description('create a node, of a type (ethernet_switch, ethernet_hub, vpcs) or from a template')
    .argument('<name>', 'name of the new node')
    .option('-t, --type <type>', 'node type: ethernet_switch, ethernet_hub or vpcs')
    .option('-T, --template <template>', 'template name or id (see emuctl template list)')
    .option('-c, --compute <compute>', 'compute to run it on, by name or id (default: local)')
    .addOption(projectOption())
    .action(async (name: string, flags: { type?: string; template?: string; compute?: string; project?: string }, cmd: Command) =>
      run({ name, type: flags.type, template: flags.template, compute: flags.compute, project: flags.project }, await f.context(cmd)));
}

/** Creates the node (POST …/nodes, or POST …/templates/{template_id} with --template) and reports it. */
export async function runNodeCreate(opts: NodeCreateOptions, ctx: Context): Promise<void> {
  if ((opts.type === undefined) === (opts.template === undefined)) throw new UsageError('give the node a --type or a --template (one of the two)');
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const computeId = opts.compute === undefined ? undefined : await resolveComputeId(api, opts.compute);
  let node;
  if (opts.template !== undefined) {
    const template = await findTemplate(api, opts.template);
    node = await createNodeFromTemplate(api, project.project_id, template.template_id, { x: 0, y: 0, name: opts.name, ...(computeId ? { compute_id: computeId } : {}) });
  } else {
    const body: NodeCreate = { name: opts.name, node_type: opts.type! };
    if (computeId !== undefined) body.compute_id = computeId;
    node = await createNode(api, project.project_id, body);
  }
  ctx.out.result(node);
  ctx.out.success(`Created ${node.node_type} ${nodeLabel(node)} on compute ${node.compute_id}`);
}
