import { Argument, Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { bashCompletionScript } from './bash.js';

/** Options of `completion`. */
export interface CompletionOptions {
  shell: 'bash';
  /** The root of the command tree to complete. */
  root: Command;
  /** Print the node names of this lab file instead (the script calls it inside lab verbs). */
  labNodes?: string;
  /** Print the link names of this lab file instead. */
  labLinks?: string;
}

/** `emuctl completion [bash]`: prints a shell completion script. */
export function completionCommand(f: Factory, run = runCompletion): Command {
  return new Command('completion')
    .description('print a bash completion script (load it with: source <(emuctl completion bash))')
    .addArgument(new Argument('[shell]', 'shell to complete for').choices(['bash']).default('bash'))
    .addOption(new Option('--lab-nodes <file>', 'print the node names of a lab file (used by the script)').hideHelp())
    .addOption(new Option('--lab-links <file>', 'print the link names of a lab file (used by the script)').hideHelp())
    .action(async (shell: 'bash', flags: { labNodes?: string; labLinks?: string }, cmd: Command) => {
      let root = cmd;
      while (root.parent) root = root.parent;
      await run({ shell, root, labNodes: flags.labNodes, labLinks: flags.labLinks }, await f.context(cmd));
    });
}

/** Writes the completion script generated from the command tree. */
export async function runCompletion(opts: CompletionOptions, ctx: Context): Promise<void> {
  const lab = opts.labNodes ?? opts.labLinks;
  if (lab === undefined) {
    ctx.out.writeOut(bashCompletionScript(opts.root));
    return;
  }
  const { readLabFile } = await import('../lab/shared.js');
  const { linkLabel } = await import('../../lab/model.js');
  // A file that cannot be read completes to nothing: completion must stay quiet.
  const spec = await readLabFile(lab, ctx.env).catch(() => undefined);
  const names = !spec ? [] : opts.labNodes !== undefined ? spec.nodes.map((n) => n.name) : spec.links.map(linkLabel);
  if (names.length) ctx.out.writeOut(`${names.join('\n')}\n`);
}
