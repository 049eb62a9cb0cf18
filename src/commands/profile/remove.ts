import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { requireProfile } from '../../client/profiles.js';

/** Options of `profile remove`. */
export interface ProfileRemoveOptions {
  name: string;
}

/** `emuctl profile remove NAME`. */
export function profileRemoveCommand(f: Factory, run = runProfileRemove): Command {
  return new Command('remove')
    .alias('rm')
    .description('remove a profile (removing local resets it to the built-in http://127.0.0.1:3080)')
    .argument('<name>', 'profile name')
    .action(async (name: string, _flags: object, cmd: Command) => run({ name }, await f.context(cmd)));
}

/** Removes the profile; if it was the current one, local becomes current again. */
export async function runProfileRemove(opts: ProfileRemoveOptions, ctx: Context): Promise<void> {
  const store = await ctx.profileStore();
  requireProfile(store.data(), opts.name);
  if (!Object.hasOwn(store.data().profiles, opts.name)) {
    throw new UsageError(`profile "${opts.name}" is built in and has no saved settings to remove`);
  }
  store.remove(opts.name);
  ctx.out.result({ removed: opts.name });
  ctx.out.success(opts.name === 'local' ? 'Reset profile local to the built-in settings' : `Removed profile ${opts.name}`);
}
