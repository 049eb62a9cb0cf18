import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError, UsageError } from '../../cli/errors.js';
import { INVENTORY_FORMATS, type InventoryFormat } from '../../lab/inventory/formats.js';
import { labSshFilesOf } from '../shared/lab-ssh.js';
import { labTarget } from './shared.js';

/** Options of `lab inventory`. */
export interface LabInventoryOptions {
  lab: string;
  format: InventoryFormat;
  /** A file to write (a directory for nornir); none: stdout. */
  output?: string;
}

/** `emuctl lab inventory FILE|NAME --format ansible|nornir|ssh-config|hosts|json [-o FILE|DIR]`. */
export function labInventoryCommand(f: Factory, run = runLabInventory): Command {
  return new Command('inventory')
    .description("write an inventory of a lab's management addresses for Ansible, Nornir, ssh or /etc/hosts (the lab needs mgmt:)")
    .argument('<lab>', 'lab file, or the name of its project')
    .addOption(new Option('-f, --format <format>', 'inventory format').choices([...INVENTORY_FORMATS]).default('ansible'))
    .option('-o, --output <path>', 'write to this file (nornir: this directory, hosts.yaml and groups.yaml) instead of stdout')
    .action(async (lab: string, flags: { format: InventoryFormat; output?: string }, cmd: Command) => run({ lab, format: flags.format, ...(flags.output !== undefined ? { output: flags.output } : {}) }, await f.context(cmd)));
}

/** Reads the lab's nodes from the server and writes the inventory of those with a management address. */
export async function runLabInventory(opts: LabInventoryOptions, ctx: Context): Promise<void> {
  if (!INVENTORY_FORMATS.includes(opts.format)) throw new UsageError(`unknown inventory format ${opts.format} (one of ${INVENTORY_FORMATS.join(', ')})`);
  const { name } = await labTarget(opts.lab, ctx.env);
  const api = await ctx.api();
  const { readLabState } = await import('../../lab/state.js');
  const { buildInventory, unlistableNodes } = await import('../../lab/inventory/hosts.js');
  const state = await readLabState(api, name);
  if (!state.project) throw new NoMatchError(`no lab ${name} on ${api.url} (no project of that name); bring it up with 'emuctl lab up FILE'`);
  const inventory = buildInventory(state.project, state.nodes, await labSshFilesOf(ctx, name));
  const unlisted = unlistableNodes(state.nodes);
  if (unlisted.length) ctx.out.note(`left out, their names are not one word of letters, digits, '.', '_' or '-': ${unlisted.map((n) => JSON.stringify(n)).join(', ')}`);
  if (!inventory.hosts.length) throw new NoMatchError(`lab ${name} has no node with a management address (give the lab file mgmt: {} and run lab up)`);
  const { inventoryText, writeInventory } = await import('../../lab/inventory/write.js');
  if (opts.output === undefined) {
    ctx.out.writeOut(inventoryText(inventory, opts.format));
    return;
  }
  const written = await writeInventory(inventory, opts.format, opts.output);
  ctx.out.note(`wrote ${written.join(', ')} (${inventory.hosts.length} host${inventory.hosts.length === 1 ? '' : 's'})`);
}
