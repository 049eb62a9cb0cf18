import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { linkCreateCommand } from './create.js';
import { linkDeleteCommand } from './delete.js';
import { linkFilterCommand } from './filter.js';
import { linkListCommand } from './list.js';
import { linkResumeCommand } from './resume.js';
import { linkShowCommand } from './show.js';
import { linkSuspendCommand } from './suspend.js';

/** `emuctl link …`: links between node ports, their filters and suspension. */
export function linkCommand(f: Factory): Command {
  return new Command('link')
    .description('list, create, show and delete links; set their filters; suspend and resume them')
    .addCommand(linkListCommand(f))
    .addCommand(linkCreateCommand(f))
    .addCommand(linkShowCommand(f))
    .addCommand(linkDeleteCommand(f))
    .addCommand(linkFilterCommand(f))
    .addCommand(linkSuspendCommand(f))
    .addCommand(linkResumeCommand(f));
}
