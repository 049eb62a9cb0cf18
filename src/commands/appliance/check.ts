import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { SilentExit } from '../../cli/errors.js';
import { checkAppliance, readApplianceFile } from '../../client/appliances.js';
import { computeIdFor } from '../../client/nodes.js';
import { planJson, planText } from './render.js';

/** Options of `appliance check`. */
export interface ApplianceCheckOptions {
  file: string;
  /** Compute name or id checked (default `local`). */
  compute?: string;
}

/** `emuctl appliance check FILE.gns3a [--compute C]`. */
export function applianceCheckCommand(f: Factory, run = runApplianceCheck): Command {
  return new Command('check')
    .description('show the versions of an appliance, the images each needs and whether the compute has them (exit 0: one version installable, 1: none, 2: not an appliance)')
    .argument('<file>', 'appliance file (.gns3a)')
    .option('-c, --compute <compute>', 'compute checked, by name or id (default: local)')
    .action(async (file: string, flags: { compute?: string }, cmd: Command) => run({ file, compute: flags.compute }, await f.context(cmd)));
}

/** Reads the file, checks each version against the compute, prints the result; exit 1 when no version is installable. */
export async function runApplianceCheck(opts: ApplianceCheckOptions, ctx: Context): Promise<void> {
  const file = await readApplianceFile(opts.file);
  const api = await ctx.api();
  const computeId = await computeIdFor(api, opts.compute);
  const plans = await checkAppliance(api, file, computeId);
  ctx.out.result(planJson(file, computeId, plans), () => planText(file, computeId, plans, ctx.out.style));
  if (!plans.some((p) => !p.problems.length)) {
    if (!plans.length) ctx.out.error(`${file.name} lists no versions: nothing to install`);
    throw new SilentExit(1);
  }
}
