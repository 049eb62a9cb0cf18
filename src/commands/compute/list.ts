import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listComputes } from '../../client/computes.js';
import { computeTable } from './render.js';

/** Options of `compute list` (none of its own). */
export type ComputeListOptions = Record<string, never>;

/** `emuctl compute list`. */
export function computeListCommand(f: Factory, run = runComputeList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the computes: URL, connection, CPU and memory use, last error')
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Lists the computes (GET /v2/computes): a table, or the server's array with --json. */
export async function runComputeList(_opts: ComputeListOptions, ctx: Context): Promise<void> {
  const computes = await listComputes(await ctx.api());
  ctx.out.result(computes, () => (computes.length ? computeTable(computes, ctx.out.style) : 'no computes\n'));
}
