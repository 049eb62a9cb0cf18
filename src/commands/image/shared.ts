import { Option } from 'commander';
import type { Context } from '../../cli/context.js';
import { resolveComputeId } from '../../client/nodes.js';

/** `-c, --compute`: the compute whose images to act on (default local). */
export function imageComputeOption(): Option {
  return new Option('-c, --compute <compute>', 'compute, by name or id (default: local)');
}

/** The compute id named by --compute (`local` when absent). */
export async function imageComputeId(ctx: Context, ref: string | undefined): Promise<string> {
  if (ref === undefined || ref === 'local') return 'local';
  return resolveComputeId(await ctx.api(), ref);
}
