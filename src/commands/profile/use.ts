import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { requireProfile } from '../../client/profiles.js';

/** Options of `profile use`. */
export interface ProfileUseOptions {
  name: string;
}

/** `emuctl profile use NAME`. */
export function profileUseCommand(f: Factory, run = runProfileUse): Command {
  return new Command('use')
    .description('make a profile the one commands use by default')
    .argument('<name>', 'profile name')
    .action(async (name: string, _flags: object, cmd: Command) => run({ name }, await f.context(cmd)));
}

/** Saves NAME as the current profile (--profile and EMUCTL_PROFILE still override it). */
export async function runProfileUse(opts: ProfileUseOptions, ctx: Context): Promise<void> {
  const store = await ctx.profileStore();
  const profile = requireProfile(store.data(), opts.name);
  store.setCurrent(profile.name);
  ctx.out.result({ current: profile.name, url: profile.url });
  ctx.out.success(`Now using profile ${profile.name} (${profile.url})`);
  if (ctx.globals.profile || ctx.env.EMUCTL_PROFILE) ctx.out.note('note: --profile or EMUCTL_PROFILE still overrides it');
}
