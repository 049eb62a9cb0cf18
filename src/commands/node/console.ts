import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { UnreachableError, UsageError } from '../../client/errors.js';
import { consoleAddress, resolveNode } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { streamServer } from '../shared/streams.js';
import { processTerminal, runConsoleSession, type Terminal } from './console-session.js';
import { hostPort } from './render.js';

/** How long the console's own TCP port gets to answer before the console websocket is tried. */
const TCP_CONNECT_TIMEOUT_MS = 3000;

/** Options of `node console`. */
export interface NodeConsoleOptions {
  node: string;
  /** Only print host:port, even on a terminal. */
  print: boolean;
  /** Connect through the server's console websocket (its API port), on a terminal or not. */
  websocket: boolean;
  project?: string;
}

/** `emuctl node console N [--print] [-p P]`. */
export function nodeConsoleCommand(f: Factory, run = runNodeConsole): Command {
  return new Command('console')
    .description("print a node's console host:port; on a terminal, connect to it (Ctrl-] quits), through the API's console websocket when the port cannot be reached")
    .argument('<node>', 'node name, UUID or unique UUID prefix')
    .option('--print', 'only print host:port, even on a terminal')
    .option('--websocket', "connect through the server's console websocket (its API port, the profile's credentials), on a terminal or not")
    .addOption(projectOption())
    .action(async (node: string, flags: { print?: boolean; websocket?: boolean; project?: string }, cmd: Command) =>
      run({ node, print: flags.print === true, websocket: flags.websocket === true, project: flags.project }, await f.context(cmd)));
}

/**
 * Prints `host:port` of the node's console (with --json: the node's console fields), or, when stdin
 * and stdout are both terminals (or with --websocket), connects them to the console until Ctrl-]:
 * to its TCP port, else through the server's console websocket (a remote daemon behind one port).
 */
export async function runNodeConsole(opts: NodeConsoleOptions, ctx: Context, terminal: Terminal = processTerminal()): Promise<void> {
  if (opts.websocket && (opts.print || ctx.out.json)) throw new UsageError('--websocket connects to the console: it cannot be used with --print or --json');
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const node = await resolveNode(api, project_id, opts.node);
  const address = consoleAddress(node, api.url);
  if (!address) throw new OperationError(`node ${node.name} (${node.node_type}) has no console`);
  const where = hostPort(address.host, address.port);
  const started = node.status === 'started';
  const interactive = opts.websocket || (Boolean(terminal.input.isTTY && terminal.output.isTTY) && !opts.print && !ctx.out.json);
  if (!interactive) {
    ctx.out.result({ node_id: node.node_id, name: node.name, console_type: node.console_type, console_host: address.host, console: address.port },
      () => `${where}\n`);
    if (!started) ctx.out.note(`${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
    else if (node.console_type === 'telnet' && !ctx.out.json) ctx.out.note(`connect with: telnet ${address.host} ${address.port}`);
    return;
  }
  if (!started) throw new OperationError(`node ${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
  const connection = await openConsole(ctx, opts, project_id, node.node_id, address);
  const end = await runConsoleSession(connection.stream, terminal, () =>
    ctx.out.note(`Connected to ${node.name} console at ${connection.where}. Press Ctrl-] to quit.`));
  ctx.out.note(end === 'escape' ? `\nDisconnected from ${node.name}.` : `\nThe console of ${node.name} closed the connection.`);
}

/** The console's TCP port, or the server's console websocket when asked or when the port cannot be reached. */
async function openConsole(ctx: Context, opts: NodeConsoleOptions, projectId: string, nodeId: string, address: { host: string; port: number }) {
  const server = streamServer(ctx);
  const viaWebSocket = async () => {
    const { openConsoleWebSocket } = await import('../../client/console-websocket.js');
    return { stream: await openConsoleWebSocket(server, projectId, nodeId), where: `${server.url.replace(/\/+$/, '')} (websocket)` };
  };
  if (opts.websocket) return viaWebSocket();
  const { connectConsoleSocket } = await import('../../client/console-socket.js');
  try {
    return { stream: await connectConsoleSocket(address.host, address.port, TCP_CONNECT_TIMEOUT_MS, 'the console at'), where: hostPort(address.host, address.port) };
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    ctx.out.note(`${err.message}; trying the console websocket of ${server.url}`);
    return viaWebSocket();
  }
}
