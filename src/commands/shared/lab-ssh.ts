import type { Context } from '../../cli/context.js';
import type { LabSshFiles } from '../../lab/ssh-keys.js';

/** The lab's SSH files on this machine for the active profile's server (lab up, lab inventory, node ssh agree on them). */
export async function labSshFilesOf(ctx: Context, lab: string): Promise<LabSshFiles> {
  const { labSshFiles } = await import('../../lab/ssh-keys.js');
  return labSshFiles(ctx.paths.home, (await ctx.api()).url, lab);
}
