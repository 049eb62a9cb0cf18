import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { linkCreateCommand } from './create.js';
import { linkDeleteCommand } from './delete.js';
import { linkFilterCommand } from './filter.js';
import { linkListCommand } from './list.js';
import { linkResumeCommand } from './resume.js';
import { linkShowCommand } from './show.js';
import { linkStatsCommand } from './stats.js';
import { linkSuspendCommand } from './suspend.js';

/** `emuctl link …`: links between node ports, their filters, suspension and traffic. */
export function linkCommand(f: Factory): Command {
  return new Command('link')
    .description('list, create, show and delete links; set their filters; suspend and resume them; show their traffic')
    .addCommand(linkListCommand(f))
    .addCommand(linkCreateCommand(f))
    .addCommand(linkShowCommand(f))
    .addCommand(linkDeleteCommand(f))
    .addCommand(linkFilterCommand(f))
    .addCommand(linkSuspendCommand(f))
    .addCommand(linkResumeCommand(f))
    .addCommand(linkStatsCommand(f));
}
