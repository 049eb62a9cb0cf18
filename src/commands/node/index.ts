import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { nodeConsoleCommand } from './console.js';
import { nodeCreateCommand } from './create.js';
import { nodeExecCommand } from './exec.js';
import { nodeDeleteCommand } from './delete.js';
import { nodeListCommand } from './list.js';
import { nodeShowCommand } from './show.js';
import { nodeSshCommand } from './ssh.js';
import { nodeStartCommand } from './start.js';
import { nodeStopCommand } from './stop.js';

/** `emuctl node …`: switches, hubs and VPCS in a project. */
export function nodeCommand(f: Factory): Command {
  return new Command('node')
    .description('list, create, show, start, stop and delete nodes; open their consoles; run commands on them; ssh to them')
    .addCommand(nodeListCommand(f))
    .addCommand(nodeCreateCommand(f))
    .addCommand(nodeShowCommand(f))
    .addCommand(nodeStartCommand(f))
    .addCommand(nodeStopCommand(f))
    .addCommand(nodeDeleteCommand(f))
    .addCommand(nodeConsoleCommand(f))
    .addCommand(nodeExecCommand(f))
    .addCommand(nodeSshCommand(f));
}
