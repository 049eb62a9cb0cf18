import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError } from '../../cli/errors.js';
import { listNodes } from '../../client/nodes.js';
import { deleteProject, openProject } from '../../client/projects.js';
import { labSshFilesOf } from '../shared/lab-ssh.js';
import { labTarget } from './shared.js';

/** Options of `lab down`. */
export interface LabDownOptions {
  /** Lab file or project name. */
  lab: string;
  /** Stop the nodes only; keep the project. */
  keep: boolean;
}

/** `emuctl lab down FILE|NAME [--keep]`. */
export function labDownCommand(f: Factory, run = runLabDown): Command {
  return new Command('down')
    .description("stop a lab's nodes and delete its project, or with --keep only stop the nodes")
    .argument('<lab>', 'lab file, or the name of its project')
    .option('--keep', 'stop the nodes only, keep the project')
    .action(async (lab: string, flags: { keep?: boolean }, cmd: Command) => run({ lab, keep: flags.keep === true }, await f.context(cmd)));
}

/** Stops every node that runs (4 per core at a time, progress on stderr), then deletes the project unless --keep. */
export async function runLabDown(opts: LabDownOptions, ctx: Context): Promise<void> {
  const { name } = await labTarget(opts.lab, ctx.env);
  const api = await ctx.api();
  const { findLabProject } = await import('../../lab/state.js');
  const found = await findLabProject(api, name);
  if (!found) throw new NoMatchError(`no lab ${name} on ${api.url} (no project of that name)`);
  const project = found.status === 'closed' ? await openProject(api, found.project_id) : found;
  const nodes = await listNodes(api, project.project_id);
  const running = nodes.filter((n) => n.status !== 'stopped' && !['ethernet_switch', 'ethernet_hub'].includes(n.node_type));
  const { stopPaced } = await import('../../lab/stop.js');
  await stopPaced(api, project.project_id, running, ctx.out);
  if (running.length) ctx.out.success(running.length > 20 ? `Stopped ${running.length} nodes` : `Stopped ${running.map((n) => n.name).join(', ')}`);
  if (!opts.keep) {
    const { bulkTimeoutMs } = await import('../../client/pacing.js');
    // The server stops and removes every container of the project in this one request.
    await ctx.out.spin(`Deleting project ${project.name}`, () => deleteProject(api, project.project_id, bulkTimeoutMs(nodes.length)));
    ctx.out.success(`Deleted lab ${name} (project ${project.project_id})`);
    // The next lab up makes new containers, with new host keys at the same addresses.
    const { forgetHostKeys } = await import('../../lab/ssh-keys.js');
    await forgetHostKeys(await labSshFilesOf(ctx, name), 'all');
  } else {
    ctx.out.success(`Lab ${name} is stopped; its project is kept`);
  }
  ctx.out.result({ lab: name, project_id: project.project_id, stopped: running.map((n) => n.name), deleted: !opts.keep });
}
