import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, SilentExit, UsageError } from '../../cli/errors.js';
import { listNodes, nodeAction, resolveNode, type Node } from '../../client/nodes.js';
import type { Project } from '../../client/projects.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { consoleCell, nodeLabel } from './render.js';
import { sortedByName } from '../../render/sort.js';

/** Options of `node start` and `node stop`. */
export interface NodePowerOptions {
  /** Name, UUID or unique UUID prefix; absent with `all`. */
  node?: string;
  /** Every node of the project. */
  all: boolean;
  project?: string;
}

const PAST = { start: 'Started', stop: 'Stopped' } as const;
const ING = { start: 'Starting', stop: 'Stopping' } as const;

/** The builder `node start` and `node stop` share: `emuctl node start|stop (N | --all) [-p P]`. */
export function nodePowerCommand(action: 'start' | 'stop', f: Factory, run: (opts: NodePowerOptions, ctx: Context) => Promise<void>): Command {
  return new Command(action)
    .description(`${action} a node, or every node of the project with --all`)
    .argument('[node]', 'node name, UUID or unique UUID prefix')
    .option('-a, --all', `${action} every node of the project`)
    .addOption(projectOption())
    .action(async (node: string | undefined, flags: { all?: boolean; project?: string }, cmd: Command) =>
      run({ node, all: flags.all === true, project: flags.project }, await f.context(cmd)));
}

/** Starts or stops one node (prints it with --json) or all of them (prints them all with --json). */
export async function runNodePower(action: 'start' | 'stop', opts: NodePowerOptions, ctx: Context): Promise<void> {
  if (opts.all && opts.node !== undefined) throw new UsageError(`give a node or --all, not both`);
  if (!opts.all && opts.node === undefined) throw new UsageError(`missing node: give a node name, or --all to ${action} every node`);
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  if (opts.all) return powerAll(action, project, ctx);
  const target = await resolveNode(api, project.project_id, opts.node!);
  const node = await ctx.out.spin(`${ING[action]} ${target.name}`, () => nodeAction(api, project.project_id, target.node_id, action));
  ctx.out.result(node);
  const console = action === 'start' && consoleCell(node) !== '-' ? `, console ${consoleCell(node)}` : '';
  ctx.out.success(`${PAST[action]} ${nodeLabel(node)}${console}`);
}

/**
 * Every node of the project, one after the other, each reported (POST …/nodes/{node_id}/start|stop):
 * a node that fails does not keep the others from starting, and its error is named. (One at a time
 * rather than POST …/nodes/start: each change is also a topology write on the server.)
 */
async function powerAll(action: 'start' | 'stop', project: Project, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const nodes = await listNodes(api, project.project_id);
  const { perNodeTimeoutMs } = await import('../../client/pacing.js');
  const done: Node[] = [];
  let failed = 0;
  for (const target of sortedByName(nodes, (n) => n.name)) {
    try {
      const node = await ctx.out.spin(`${ING[action]} ${target.name}`, () => nodeAction(api, project.project_id, target.node_id, action, perNodeTimeoutMs()));
      done.push(node);
      ctx.out.success(`${PAST[action]} ${nodeLabel(node)}`);
    } catch (err) {
      if (!(err instanceof OperationError)) throw err;
      failed++;
      done.push(target);
      ctx.out.error(`${target.name}: ${err.message}`);
    }
  }
  ctx.out.result(done);
  if (!nodes.length) ctx.out.note(`no nodes in project ${project.name}`);
  if (failed) throw new SilentExit(1);
}
