import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { consoleAddress, resolveNode } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { processTerminal, runConsoleSession, type Terminal } from './console-session.js';
import { hostPort } from './render.js';

/** Options of `node console`. */
export interface NodeConsoleOptions {
  node: string;
  /** Only print host:port, even on a terminal. */
  print: boolean;
  project?: string;
}

/** `emuctl node console N [--print] [-p P]`. */
export function nodeConsoleCommand(f: Factory, run = runNodeConsole): Command {
  return new Command('console')
    .description("print a node's console host:port; on a terminal, connect to it (Ctrl-] quits)")
    .argument('<node>', 'node name, UUID or unique UUID prefix')
    .option('--print', 'only print host:port, even on a terminal')
    .addOption(projectOption())
    .action(async (node: string, flags: { print?: boolean; project?: string }, cmd: Command) =>
      run({ node, print: flags.print === true, project: flags.project }, await f.context(cmd)));
}

/**
 * Prints `host:port` of the node's console (with --json: the node's console fields), or, when stdin
 * and stdout are both terminals, connects them to the console until Ctrl-].
 */
export async function runNodeConsole(opts: NodeConsoleOptions, ctx: Context, terminal: Terminal = processTerminal()): Promise<void> {
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const node = await resolveNode(api, project_id, opts.node);
  const address = consoleAddress(node, api.url);
  if (!address) throw new OperationError(`node ${node.name} (${node.node_type}) has no console`);
  const where = hostPort(address.host, address.port);
  const started = node.status === 'started';
  const interactive = Boolean(terminal.input.isTTY && terminal.output.isTTY) && !opts.print && !ctx.out.json;
  if (!interactive) {
    ctx.out.result({ node_id: node.node_id, name: node.name, console_type: node.console_type, console_host: address.host, console: address.port },
      () => `${where}\n`);
    if (!started) ctx.out.note(`${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
    else if (node.console_type === 'telnet' && !ctx.out.json) ctx.out.note(`connect with: telnet ${address.host} ${address.port}`);
    return;
  }
  if (!started) throw new OperationError(`node ${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
  const end = await runConsoleSession(address.host, address.port, terminal, () =>
    ctx.out.note(`Connected to ${node.name} console at ${where}. Press Ctrl-] to quit.`));
  ctx.out.note(end === 'escape' ? `\nDisconnected from ${node.name}.` : `\nThe console of ${node.name} closed the connection.`);
}
