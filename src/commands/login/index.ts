import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';

/** Options of `login` (none of its own: the profile gives the server and credentials). */
export type LoginOptions = Record<string, never>;

/** `emuctl login`: logs in to the profile's GNS3 3.x server now and keeps the token (0600, never printed). */
export function loginCommand(f: Factory, run = runLogin): Command {
  return new Command('login')
    .description("log in to the profile's GNS3 3.x server now and keep the token (commands also log in by themselves when they need to)")
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Logs in and says until when the token is valid; the token itself is never printed. */
export async function runLogin(_opts: LoginOptions, ctx: Context): Promise<void> {
  const profile = ctx.profile();
  const expires = await ctx.session().loginNow();
  const until = expires === undefined ? undefined : new Date(expires * 1000).toISOString();
  ctx.out.result({ profile: profile.name, url: profile.url, user: profile.user ?? null, expires: until ?? null });
  ctx.out.success(`Logged in to ${profile.url} as ${profile.user}${until ? `; the token is valid until ${until}` : ''}`);
}
