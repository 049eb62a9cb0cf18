import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { allProfiles } from '../../client/profiles.js';
import { profileTable, profileView } from './render.js';

/** Options of `profile list` (none of its own). */
export type ProfileListOptions = Record<string, never>;

/** `emuctl profile list`. */
export function profileListCommand(f: Factory, run = runProfileList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the profiles (* marks the active one)')
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Lists the profiles, passwords masked. */
export async function runProfileList(_opts: ProfileListOptions, ctx: Context): Promise<void> {
  const active = ctx.profile().name;
  const views = allProfiles(ctx.profilesData()).map((profile) => profileView(profile, active));
  ctx.out.result(views, () => profileTable(views, ctx.out.style));
}
