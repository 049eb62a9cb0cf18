import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findCompute, getCompute } from '../../client/computes.js';
import { computeDetails } from './render.js';

/** Options of `compute show`. */
export interface ComputeShowOptions {
  compute: string;
}

/** `emuctl compute show C`. */
export function computeShowCommand(f: Factory, run = runComputeShow): Command {
  return new Command('show')
    .description("show a compute's address, state and capabilities")
    .argument('<compute>', 'compute name, id or unique UUID prefix')
    .action(async (compute: string, _flags: object, cmd: Command) => run({ compute }, await f.context(cmd)));
}

/** Shows one compute (GET /v2/computes/{compute_id}). */
export async function runComputeShow(opts: ComputeShowOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const compute = await getCompute(api, (await findCompute(api, opts.compute)).compute_id);
  ctx.out.result(compute, () => computeDetails(compute, ctx.out.style));
}
