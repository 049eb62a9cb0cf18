import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { requireProfile } from '../../client/profiles.js';
import { profileDetails, profileView } from './render.js';

/** Options of `profile show`. */
export interface ProfileShowOptions {
  /** The profile to show; the active one (with any --url/EMUCTL_URL override) when absent. */
  name?: string;
}

/** `emuctl profile show [NAME]`. */
export function profileShowCommand(f: Factory, run = runProfileShow): Command {
  return new Command('show')
    .description('show a profile, password masked (default: the active profile)')
    .argument('[name]', 'profile name')
    .action(async (name: string | undefined, _flags: object, cmd: Command) => run({ name }, await f.context(cmd)));
}

/** Shows one profile; its password is never printed, only ********. */
export async function runProfileShow(opts: ProfileShowOptions, ctx: Context): Promise<void> {
  const active = ctx.profile();
  const profile = opts.name === undefined ? active : requireProfile(ctx.profilesData(), opts.name);
  const view = profileView(profile, active.name);
  const urlNote = opts.name === undefined && active.urlSource === 'flag' ? 'from --url'
    : opts.name === undefined && active.urlSource === 'env' ? 'from EMUCTL_URL' : undefined;
  ctx.out.result(view, () => profileDetails(view, ctx.out.style, urlNote));
}
