import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError, SilentExit, UsageError } from '../../cli/errors.js';
import { listNodes, NODE_KIND } from '../../client/nodes.js';
import { resolveOne } from '../../client/resolve.js';
import { labSshFilesOf } from '../shared/lab-ssh.js';
import { projectOption, resolveProject } from '../shared/project.js';

/** Options of `node ssh`. */
export interface NodeSshOptions {
  node: string;
  /** The remote command's words (after `--`); none: an interactive session. */
  command: string[];
  project?: string;
}

/** Runs ssh with these arguments, its standard streams the CLI's own, and resolves to its exit code. */
export type SshRunner = (args: string[]) => Promise<number>;

/** `emuctl node ssh NODE [-p PROJECT] [-- COMMAND…]`. */
export function nodeSshCommand(f: Factory, run = runNodeSsh): Command {
  return new Command('ssh')
    .description("ssh to a node's management address as root with its lab's key (the lab needs mgmt:); exits with the remote command's code")
    .argument('<node>', 'node name, UUID or unique UUID prefix')
    .argument('[command...]', 'a command to run instead of a session, after --')
    .addOption(projectOption())
    .action(async (node: string, command: string[], flags: { project?: string }, cmd: Command) => run({ node, command, ...(flags.project !== undefined ? { project: flags.project } : {}) }, await f.context(cmd)));
}

/** Finds the node's management address and runs ssh to it; a non-zero exit of ssh becomes the CLI's. */
export async function runNodeSsh(opts: NodeSshOptions, ctx: Context, ssh: SshRunner = spawnSsh): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const node = resolveOne(await listNodes(api, project.project_id), opts.node, NODE_KIND);
  const { bareAddress, labSshArgs } = await import('../../lab/ssh-args.js');
  const address = bareAddress(node.properties.mgmt_ipv4);
  if (!address) throw new NoMatchError(`node ${node.name} has no management address (its lab needs mgmt: in the lab file)`);
  const { existingLabKey } = await import('../../lab/ssh-keys.js');
  const files = await existingLabKey(await labSshFilesOf(ctx, project.name), project.name);
  const code = await ssh(labSshArgs(files, address, opts.command));
  if (code !== 0) throw new SilentExit(code);
}

/** ssh in the foreground: it owns the terminal until it ends. */
async function spawnSsh(args: string[]): Promise<number> {
  const { spawn } = await import('node:child_process');
  const { constants } = await import('node:os');
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', args, { stdio: 'inherit' });
    child.on('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new UsageError('ssh is not installed (Debian package openssh-client)') : err));
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}
