import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { templateCreateCommand } from './create.js';
import { templateDeleteCommand } from './delete.js';
import { templateListCommand } from './list.js';
import { templateShowCommand } from './show.js';

/** `emuctl template …`: the templates nodes are made from. */
export function templateCommand(f: Factory): Command {
  return new Command('template')
    .description('list, show, create and delete node templates')
    .addCommand(templateListCommand(f))
    .addCommand(templateShowCommand(f))
    .addCommand(templateCreateCommand(f))
    .addCommand(templateDeleteCommand(f));
}
