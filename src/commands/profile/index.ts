import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { profileAddCommand } from './add.js';
import { profileListCommand } from './list.js';
import { profileRemoveCommand } from './remove.js';
import { profileShowCommand } from './show.js';
import { profileUseCommand } from './use.js';

/** `emuctl profile …`: saved server connections. */
export function profileCommand(f: Factory): Command {
  return new Command('profile')
    .description('manage profiles: saved server URLs, credentials and default projects')
    .addCommand(profileAddCommand(f))
    .addCommand(profileListCommand(f))
    .addCommand(profileUseCommand(f))
    .addCommand(profileShowCommand(f))
    .addCommand(profileRemoveCommand(f));
}
