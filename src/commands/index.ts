import type { Command } from 'commander';
import type { Factory } from '../cli/context.js';
import { completionCommand } from './completion/index.js';
import { daemonCommand } from './daemon/index.js';
import { profileCommand } from './profile/index.js';
import { projectCommand } from './project/index.js';
import { versionCommand } from './version/index.js';

/** Builds one noun's command subtree. */
export type NounCommand = (f: Factory) => Command;

/**
 * The nouns of `emuctl <noun> <verb>`, in help order. A new noun is a folder
 * src/commands/<noun>/ (index.ts + one file per verb) and one line here.
 */
export const NOUNS: readonly NounCommand[] = [
  daemonCommand,
  profileCommand,
  projectCommand,
  versionCommand,
  completionCommand,
];
