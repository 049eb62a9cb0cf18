import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';

/** Options of `logout` (none). */
export type LogoutOptions = Record<string, never>;

/** `emuctl logout`: forgets the token kept for the profile (GNS3 3.x has no route to revoke it). */
export function logoutCommand(f: Factory, run = runLogout): Command {
  return new Command('logout')
    .description('forget the token kept for the profile (the next command logs in again)')
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Removes the profile's kept token. */
export async function runLogout(_opts: LogoutOptions, ctx: Context): Promise<void> {
  ctx.session().forget();
  ctx.out.result({ profile: ctx.profile().name, loggedOut: true });
  ctx.out.success(`Forgot the token of profile ${ctx.profile().name}`);
}
