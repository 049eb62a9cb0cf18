import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { computeAddCommand } from './add.js';
import { computeCallCommand } from './call.js';
import { computeListCommand } from './list.js';
import { computeRemoveCommand } from './remove.js';
import { computeShowCommand } from './show.js';

/** `emuctl compute …`: the computes a controller runs nodes on. */
export function computeCommand(f: Factory): Command {
  return new Command('compute')
    .description('register, list, show and remove computes; call their API through the controller')
    .addCommand(computeAddCommand(f))
    .addCommand(computeListCommand(f))
    .addCommand(computeShowCommand(f))
    .addCommand(computeRemoveCommand(f))
    .addCommand(computeCallCommand(f));
}
