import { nounsFor } from '../commands/index.js';
import type { Output } from '../render/output.js';
import { createFactory } from './context.js';
import { CliError, errorLineFor, exitCodeFor } from './errors.js';
import { buildProgram } from './program.js';

/** The streams and environment of one CLI run. */
export interface CliIO {
  out: Output;
  env: NodeJS.ProcessEnv;
  /** Standard input (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
}

/** Parses `argv` (without node and script), runs the command and returns the exit code; never exits. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const program = buildProgram(createFactory(io.out, io.env, io.stdin), await nounsFor(argv));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    const line = errorLineFor(err);
    if (line) io.out.error(line);
    if (!(err instanceof CliError) && err instanceof Error && program.opts().debug) io.out.writeErr(`${err.stack}\n`);
    return exitCodeFor(err);
  }
}
