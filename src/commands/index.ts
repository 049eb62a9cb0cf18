import type { NounCommand } from './noun-command.js';

export type { NounCommand } from './noun-command.js';

/** A noun of `emuctl <noun> <verb>`, loaded only when a command line needs it. */
export interface Noun {
  name: string;
  load(): Promise<NounCommand>;
}

/**
 * The nouns, in help order. A new noun is a folder src/commands/<noun>/
 * (index.ts exporting `<noun>Command(f)`, plus one file per verb), one line here and one
 * in all.ts.
 */
export const NOUNS: readonly Noun[] = [
  { name: 'daemon', load: async () => (await import('./daemon/index.js')).daemonCommand },
  { name: 'profile', load: async () => (await import('./profile/index.js')).profileCommand },
  { name: 'login', load: async () => (await import('./login/index.js')).loginCommand },
  { name: 'logout', load: async () => (await import('./logout/index.js')).logoutCommand },
  { name: 'project', load: async () => (await import('./project/index.js')).projectCommand },
  { name: 'node', load: async () => (await import('./node/index.js')).nodeCommand },
  { name: 'template', load: async () => (await import('./template/index.js')).templateCommand },
  { name: 'link', load: async () => (await import('./link/index.js')).linkCommand },
  { name: 'switch', load: async () => (await import('./switch/index.js')).switchCommand },
  { name: 'appliance', load: async () => (await import('./appliance/index.js')).applianceCommand },
  { name: 'image', load: async () => (await import('./image/index.js')).imageCommand },
  { name: 'compute', load: async () => (await import('./compute/index.js')).computeCommand },
  { name: 'pool', load: async () => (await import('./pool/index.js')).poolCommand },
  { name: 'capture', load: async () => (await import('./capture/index.js')).captureCommand },
  { name: 'lab', load: async () => (await import('./lab/index.js')).labCommand },
  { name: 'events', load: async () => (await import('./events/index.js')).eventsCommand },
  { name: 'demo', load: async () => (await import('./demo/index.js')).demoCommand },
  { name: 'version', load: async () => (await import('./version/index.js')).versionCommand },
  { name: 'completion', load: async () => (await import('./completion/index.js')).completionCommand },
];

/** Global options that take a value (their value is not a noun). */
const GLOBAL_VALUE_OPTIONS = new Set(['--profile', '--url', '--api']);

/** The noun a command line names, if any: its first word that is neither an option nor an option's value. */
export function nounOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (GLOBAL_VALUE_OPTIONS.has(argv[i])) i++;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return undefined;
}

/**
 * The noun builders a command line needs: only the noun it names, so start-up loads
 * one subtree; all of them for help, typos (commander suggests names) and completion.
 */
export async function nounsFor(argv: readonly string[]): Promise<NounCommand[]> {
  const named = NOUNS.find((noun) => noun.name === nounOf(argv));
  if (named && named.name !== 'completion') return [await named.load()];
  const { NOUN_COMMANDS } = await import('./all.js');
  return NOUNS.map((noun) => NOUN_COMMANDS[noun.name]);
}

/** Every noun builder (for the whole tree: man-page checks, completion). */
export function allNouns(): Promise<NounCommand[]> {
  return nounsFor([]);
}
