import type { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { linkSuspensionCommand, runLinkSuspension, type LinkSuspensionOptions } from './suspension.js';

/** Options of `link suspend`. */
export type LinkSuspendOptions = LinkSuspensionOptions;

/** `emuctl link suspend L [-p P]`. */
export function linkSuspendCommand(f: Factory, run = runLinkSuspend): Command {
  return linkSuspensionCommand('suspend', 'suspend a link: it drops every frame until resumed', f, run);
}

/** Suspends the link (PUT {suspend: true}). */
export function runLinkSuspend(opts: LinkSuspendOptions, ctx: Context): Promise<void> {
  return runLinkSuspension(true, opts, ctx);
}
