import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { switchCreateCommand } from './create.js';
import { switchDeleteCommand } from './delete.js';
import { switchListCommand } from './list.js';
import { switchMacTableCommand } from './mac-table.js';
import { switchNioAddCommand } from './nio-add.js';
import { switchNioRemoveCommand } from './nio-remove.js';
import { switchSetPortCommand } from './set-port.js';
import { switchShowCommand } from './show.js';

/** `emuctl switch nio …`: a switch port's UDP tunnel, on the compute. */
export function switchNioCommand(f: Factory): Command {
  return new Command('nio')
    .description("connect and disconnect switch ports and UDP tunnels on the server's compute")
    .addCommand(switchNioAddCommand(f))
    .addCommand(switchNioRemoveCommand(f));
}

/** `emuctl switch …`: Ethernet switches, their ports, MAC tables and NIOs. */
export function switchCommand(f: Factory): Command {
  return new Command('switch')
    .description('create, list, show, configure and delete Ethernet switches; connect their ports')
    .addCommand(switchCreateCommand(f))
    .addCommand(switchListCommand(f))
    .addCommand(switchShowCommand(f))
    .addCommand(switchSetPortCommand(f))
    .addCommand(switchMacTableCommand(f))
    .addCommand(switchDeleteCommand(f))
    .addCommand(switchNioCommand(f));
}
