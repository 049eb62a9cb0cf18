import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { applianceCheckCommand } from './check.js';
import { applianceInstallCommand } from './install.js';

/** `emuctl appliance …`: GNS3 appliance files (.gns3a). */
export function applianceCommand(f: Factory): Command {
  return new Command('appliance')
    .description('check and install GNS3 appliance files (.gns3a)')
    .addCommand(applianceCheckCommand(f))
    .addCommand(applianceInstallCommand(f));
}
