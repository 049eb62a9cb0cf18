import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError, UsageError } from '../../cli/errors.js';
import { readLabFile } from './shared.js';

/** Options of `lab config`. */
export interface LabConfigOptions {
  file: string;
  /** Only this device node. */
  node?: string;
  /** Write the files under this directory (DIR/NODE/frr.conf …) instead of printing them. */
  output?: string;
  /** With --output: say what would be written, write nothing. */
  dryRun: boolean;
}

/** `emuctl lab config FILE [NODE] [--dry-run] [-o DIR]`. */
export function labConfigCommand(f: Factory, run = runLabConfig): Command {
  return new Command('config')
    .description("print the configurations emuctl generates for a lab file's device nodes (frr.conf, daemons, host start scripts), or write them to a directory")
    .argument('<file>', 'lab file')
    .argument('[node]', 'only this device node')
    .option('-o, --output <dir>', 'write DIR/NODE/FILE instead of printing')
    .option('--dry-run', 'with -o: list the files it would write, write nothing', false)
    .action(async (file: string, node: string | undefined, flags: { output?: string; dryRun: boolean }, cmd: Command) =>
      run({ file, node, output: flags.output, dryRun: flags.dryRun }, await f.context(cmd)));
}

/** Prints (or writes) the generated files; the same file gives the same bytes. */
export async function runLabConfig(opts: LabConfigOptions, ctx: Context): Promise<void> {
  const spec = await readLabFile(opts.file, ctx.env);
  const { generatedFiles, renderGeneratedFiles } = await import('../../lab/generated/configs.js');
  let files;
  try {
    files = generatedFiles(spec, opts.node);
  } catch (err) {
    throw new NoMatchError((err as Error).message);
  }
  if (opts.output === undefined) {
    ctx.out.result(Object.fromEntries(files.map((f) => [`${f.node} ${f.path}`, f.text])), () => renderGeneratedFiles(files));
    return;
  }
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { dirname, isAbsolute, join, relative, resolve } = await import('node:path');
  for (const file of files) {
    const target = join(opts.output, file.output);
    // Node names come from the lab file: `../x` would write beside DIR, not in it.
    const inside = relative(resolve(opts.output), resolve(target));
    if (inside.startsWith('..') || isAbsolute(inside)) throw new UsageError(`node ${file.node}: its name would write ${target}, outside ${opts.output}; rename the node`);
    if (opts.dryRun) {
      ctx.out.writeOut(`would write ${target}\n`);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.text);
  }
  ctx.out.result(files.map((f) => join(opts.output!, f.output)));
  if (!opts.dryRun) ctx.out.success(`Wrote ${files.length} file${files.length === 1 ? '' : 's'} of lab ${spec.name} under ${opts.output}`);
}
