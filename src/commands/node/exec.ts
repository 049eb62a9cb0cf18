import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { CliError, SilentExit, UsageError } from '../../cli/errors.js';
import type { ExecResult } from '../../client/node-exec.js';
import { listNodes, NODE_KIND } from '../../client/nodes.js';
import { resolveOne } from '../../client/resolve.js';
import { parseSeconds } from '../shared/options.js';
import { projectOption, resolveProject } from '../shared/project.js';

/** Options of `node exec`. */
export interface NodeExecOptions {
  /** The nodes to run the command on (one, or several with -n). */
  nodes: string[];
  /** The command's words as given after `--`: a container gets them as argv, a console line joined by spaces. */
  words: string[];
  timeoutSeconds: number;
  project?: string;
}

export const DEFAULT_EXEC_TIMEOUT_S = 30;

/** `emuctl node exec (NODE | -n N1,N2) [--timeout S] [-p P] -- COMMAND…`. */
export function nodeExecCommand(f: Factory, run = runNodeExec): Command {
  return new Command('exec')
    .description("run a command on a node (a docker node's container, else its console) and print its output (several nodes at once with -n, in parallel)")
    .argument('[node]', 'node name, UUID or unique UUID prefix (not with -n)')
    .argument('[command...]', 'the command, after --')
    .option('-n, --nodes <nodes>', 'comma-separated nodes to run it on in parallel; output lines get the node name in front')
    .option('-t, --timeout <seconds>', `how long the command may take (default ${DEFAULT_EXEC_TIMEOUT_S})`, parseSeconds)
    .addOption(projectOption())
    .action(async (node: string | undefined, words: string[], flags: { nodes?: string; timeout?: number; project?: string }, cmd: Command) => {
      const nodes = flags.nodes !== undefined ? flags.nodes.split(',').map((n) => n.trim()).filter(Boolean) : node !== undefined ? [node] : [];
      const commandWords = flags.nodes !== undefined && node !== undefined ? [node, ...words] : words;
      await run({ nodes, words: commandWords, timeoutSeconds: flags.timeout ?? DEFAULT_EXEC_TIMEOUT_S, project: flags.project }, await f.context(cmd));
    });
}

/** Runs the command on each node's console at once; exits with the highest status (1 when a node could not run it). */
export async function runNodeExec(opts: NodeExecOptions, ctx: Context): Promise<void> {
  if (!opts.nodes.length) throw new UsageError('missing node: give NODE, or -n N1,N2');
  if (!opts.words.join(' ').trim()) throw new UsageError('missing command: give it after --, e.g. emuctl node exec PC1 -- ping 10.0.0.2');
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const all = await listNodes(api, project.project_id);
  const nodes = opts.nodes.map((ref) => resolveOne(all, ref, NODE_KIND));
  const { execOnNode } = await import('../../client/node-exec.js');
  const several = opts.nodes.length > 1;
  const outcomes = await Promise.all(nodes.map((node) => execOnNode(node, api, opts.words, opts.timeoutSeconds * 1000)
    .then((result) => ({ node: node.name, result }), (error: Error) => ({ node: node.name, error }))));
  const results = outcomes.flatMap((o) => ('result' in o ? [o.result] : []));
  const failures = outcomes.flatMap((o) => ('error' in o ? [o] : []));
  if (!several && failures.length) throw failures[0].error;
  ctx.out.result(several ? results : results[0], () => results.map((r) => text(r, several)).join(''));
  for (const f of failures) ctx.out.error(`${f.node}: ${f.error.message}`);
  const worst = Math.max(0, ...results.map((r) => r.exit_code), ...failures.map((f) => (f.error instanceof CliError ? f.error.exitCode : 1)));
  if (worst) throw new SilentExit(worst);
}

function text(result: ExecResult, prefixed: boolean): string {
  if (!result.output) return '';
  return result.output.split('\n').map((line) => (prefixed ? `${result.node}: ${line}` : line)).join('\n') + '\n';
}
