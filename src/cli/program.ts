import { Command } from 'commander';
import type { NounCommand } from '../commands/index.js';
import type { Output } from '../render/output.js';
import type { Factory } from './context.js';
import { addGlobalOptions } from './globals.js';
import { clientVersion } from './meta.js';

/** Every command of a tree, depth first, the root included. */
export function walkCommands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((child) => walkCommands(child))];
}

/** The full path of a command below the root, e.g. "project list". */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Builds the emuctl command tree: global options, then the given nouns' subtrees (see nounsFor). */
export function buildProgram(f: Factory, nouns: readonly NounCommand[]): Command {
  const program = addGlobalOptions(new Command('emuctl'))
    .description('Drive network-emulation labs on a local emuctl daemon or any GNS3 v2 server.')
    .version(clientVersion(), '-V, --version', 'print the emuctl version');
  for (const noun of nouns) program.addCommand(noun(f));
  for (const command of walkCommands(program)) configureCommand(command, f.out);
  return program;
}

/** The settings every command shares: output through the one output object, errors thrown, not exits. */
function configureCommand(command: Command, out: Output): void {
  command
    .exitOverride()
    .configureOutput({
      writeOut: (text) => out.writeOut(text),
      writeErr: (text) => out.writeErr(text),
      outputError: (text, write) => write(text),
    })
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false });
}
