import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { installAppliance, readApplianceFile } from '../../client/appliances.js';
import { computeIdFor } from '../../client/nodes.js';
import { templateDetails, templateLabel } from '../template/render.js';

/** Options of `appliance install`. */
export interface ApplianceInstallOptions {
  file: string;
  /** The appliance version to install (needed when it has several). */
  applianceVersion?: string;
  /** Compute name or id the template's nodes run on (default `local`). */
  compute?: string;
}

/** `emuctl appliance install FILE.gns3a [--appliance-version V] [--compute C]`. */
export function applianceInstallCommand(f: Factory, run = runApplianceInstall): Command {
  return new Command('install')
    .description('create the template GNS3 would create from an appliance (docker and QEMU appliances)')
    .argument('<file>', 'appliance file (.gns3a)')
    .option('--appliance-version <version>', 'version of the appliance to install (see appliance check)')
    .option('-c, --compute <compute>', 'compute its nodes run on, by name or id (default: local)')
    .action(async (file: string, flags: { applianceVersion?: string; compute?: string }, cmd: Command) =>
      run({ file, applianceVersion: flags.applianceVersion, compute: flags.compute }, await f.context(cmd)));
}

/** Creates the template (POST /v2/templates) and reports it; nothing is created when the compute lacks what the version needs. */
export async function runApplianceInstall(opts: ApplianceInstallOptions, ctx: Context): Promise<void> {
  const file = await readApplianceFile(opts.file);
  const api = await ctx.api();
  const computeId = await computeIdFor(api, opts.compute);
  const { template } = await installAppliance(api, file, { version: opts.applianceVersion, computeId });
  ctx.out.result(template, () => templateDetails(template, ctx.out.style));
  ctx.out.success(`Created template ${templateLabel(template)}`);
}
