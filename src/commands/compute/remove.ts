import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findCompute, removeCompute } from '../../client/computes.js';
import { computeLabel } from './render.js';

/** Options of `compute remove`. */
export interface ComputeRemoveOptions {
  compute: string;
}

/** `emuctl compute remove C`. */
export function computeRemoveCommand(f: Factory, run = runComputeRemove): Command {
  return new Command('remove')
    .alias('rm')
    .description('unregister a compute (the built-in local compute cannot be removed)')
    .argument('<compute>', 'compute name, id or unique UUID prefix')
    .action(async (compute: string, _flags: object, cmd: Command) => run({ compute }, await f.context(cmd)));
}

/** Removes the compute (DELETE /v2/computes/{compute_id}). */
export async function runComputeRemove(opts: ComputeRemoveOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const compute = await findCompute(api, opts.compute);
  await removeCompute(api, compute.compute_id);
  ctx.out.result({ removed: true, compute_id: compute.compute_id, name: compute.name });
  ctx.out.success(`Removed compute ${computeLabel(compute)}`);
}
