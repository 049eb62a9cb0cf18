import type { Context } from '../../cli/context.js';

/** Warns when the server gave a new node another name than the one asked for: GNS3 (and emuctl) rename a taken name instead of refusing it. */
export function warnIfRenamed(ctx: Context, requested: string | undefined, given: string): void {
  const wanted = requested?.replace(/ /g, '');
  if (wanted && !wanted.includes('{') && given !== wanted) ctx.out.warn(`'${wanted}' is taken in this project; the server named the node ${given}`);
}
