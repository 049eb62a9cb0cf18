import type { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { linkSuspensionCommand, runLinkSuspension, type LinkSuspensionOptions } from './suspension.js';

/** Options of `link resume`. */
export type LinkResumeOptions = LinkSuspensionOptions;

/** `emuctl link resume L [-p P]`. */
export function linkResumeCommand(f: Factory, run = runLinkResume): Command {
  return linkSuspensionCommand('resume', 'resume a suspended link', f, run);
}

/** Resumes the link (PUT {suspend: false}). */
export function runLinkResume(opts: LinkResumeOptions, ctx: Context): Promise<void> {
  return runLinkSuspension(false, opts, ctx);
}
