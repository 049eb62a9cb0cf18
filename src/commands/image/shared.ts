import { Option } from 'commander';
import type { Context } from '../../cli/context.js';
import { spinWithProgress } from '../../render/output.js';
import { formatBytes } from '../../render/progress.js';
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

/** A progress line (bytes sent, total, percent, rate) behind an ora spinner, on a terminal only. */
export function withProgress<T>(ctx: Context, label: string, task: (progress: (sent: number, total: number) => void) => Promise<T>): Promise<T> {
  const started = Date.now();
  let last = 0;
  return spinWithProgress(ctx.out, label, (update) => task((sent, total) => {
    const now = Date.now();
    if (now - last < 100 && sent < total) return;
    last = now;
    const rate = sent / Math.max((now - started) / 1000, 0.001);
    update(`${label}: ${formatBytes(sent)} of ${formatBytes(total)} (${Math.floor((sent / Math.max(total, 1)) * 100)}%), ${formatBytes(rate)}/s`);
  }));
}
