import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { labConfigCommand } from './config.js';
import { labDownCommand } from './down.js';
import { labGenerateCommand } from './generate.js';
import { labGraphCommand } from './graph.js';
import { labInspectCommand } from './inspect.js';
import { labInventoryCommand } from './inventory.js';
import { labSaveCommand } from './save.js';
import { labTestCommand } from './test.js';
import { labUpCommand } from './up.js';
import { labWaitCommand } from './wait.js';

/** `emuctl lab …`: labs as code, from a YAML topology file. */
export function labCommand(f: Factory): Command {
  return new Command('lab')
    .description('labs as code: bring a YAML topology file up, inspect, draw, write inventories, save, wait for pings, run its tests, take it down; generate lab files and show their configurations')
    .addCommand(labUpCommand(f))
    .addCommand(labDownCommand(f))
    .addCommand(labInspectCommand(f))
    .addCommand(labGraphCommand(f))
    .addCommand(labInventoryCommand(f))
    .addCommand(labSaveCommand(f))
    .addCommand(labWaitCommand(f))
    .addCommand(labTestCommand(f))
    .addCommand(labGenerateCommand(f))
    .addCommand(labConfigCommand(f));
}
