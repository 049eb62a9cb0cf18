import { Argument, Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { bashCompletionScript } from './bash.js';

/** Options of `completion`. */
export interface CompletionOptions {
  shell: 'bash';
  /** The root of the command tree to complete. */
  root: Command;
}

/** `emuctl completion [bash]`: prints a shell completion script. */
export function completionCommand(f: Factory, run = runCompletion): Command {
  return new Command('completion')
    .description('print a bash completion script (load it with: source <(emuctl completion bash))')
    .addArgument(new Argument('[shell]', 'shell to complete for').choices(['bash']).default('bash'))
    .action(async (shell: 'bash', _flags: object, cmd: Command) => {
      let root = cmd;
      while (root.parent) root = root.parent;
      await run({ shell, root }, await f.context(cmd));
    });
}

/** Writes the completion script generated from the command tree. */
export async function runCompletion(opts: CompletionOptions, ctx: Context): Promise<void> {
  ctx.out.writeOut(bashCompletionScript(opts.root));
}
