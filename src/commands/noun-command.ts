import type { Command } from 'commander';
import type { Factory } from '../cli/context.js';

/** Builds one noun's command subtree. */
export type NounCommand = (f: Factory) => Command;
