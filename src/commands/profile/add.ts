import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UsageError } from '../../cli/errors.js';
import { checkProfileName, checkServerUrl, findProfile, type Profile } from '../../client/profiles.js';
import { savedTrust } from '../shared/tls-options.js';
import { profileView } from './render.js';

/** Options of `profile add`. */
export interface ProfileAddOptions {
  name: string;
  /** From the global --url (commander gives it to the root, see globals.ts). */
  url?: string;
  user?: string;
  passwordStdin: boolean;
  defaultProject?: string;
  force: boolean;
}

/** `emuctl profile add NAME --url URL [--user U] [--password-stdin] [--default-project P] [--force]`. */
export function profileAddCommand(f: Factory, run = runProfileAdd): Command {
  return new Command('add')
    .description('save a profile: a server URL with optional credentials and default project')
    .usage('<name> --url <url> [--user <user>] [--password-stdin] [--ca-file <file> | --fingerprint <sha256>] [--default-project <project>] [--force]')
    .argument('<name>', "profile name (letters, digits, '_' and '-')")
    .option('--user <user>', 'user name for HTTP basic auth')
    .option('--password-stdin', 'read the password from standard input (never from the command line)')
    .option('--default-project <project>', 'project used when a command needs one and none is given')
    .option('--force', 'replace a profile of the same name')
    .addHelpText('after', '\nThe server URL is given with the global --url option, e.g. --url http://lab-server:3080;\n'
      + 'for https, --ca-file FILE (a CA to trust) or --fingerprint SHA256 (the certificate to pin) are saved too.')
    .action(async (name: string, flags: Omit<ProfileAddOptions, 'name' | 'url'>, cmd: Command) => {
      const ctx = await f.context(cmd);
      await run({
        name,
        url: ctx.globals.url,
        user: flags.user,
        passwordStdin: flags.passwordStdin === true,
        defaultProject: flags.defaultProject,
        force: flags.force === true,
      }, ctx);
    });
}

/** Validates and saves the profile (file mode 0600); prints it with the password masked. */
export async function runProfileAdd(opts: ProfileAddOptions, ctx: Context): Promise<void> {
  checkProfileName(opts.name);
  if (!opts.url) throw new UsageError('profile add needs --url URL, e.g. --url http://lab-server:3080');
  const url = checkServerUrl(opts.url);
  if (opts.passwordStdin && !opts.user) throw new UsageError('--password-stdin needs --user');
  const password = opts.passwordStdin ? (await ctx.readStdin()).replace(/\r?\n$/, '') : undefined;

  const store = await ctx.profileStore();
  const saved = opts.name !== 'local' || Object.hasOwn(store.data().profiles, 'local');
  if (saved && findProfile(store.data(), opts.name) && !opts.force) {
    throw new OperationError(`profile "${opts.name}" already exists; add --force to replace it`);
  }
  const { caFile, fingerprint } = await savedTrust(ctx, url);
  const profile: Profile = { name: opts.name, url, user: opts.user, password, caFile, fingerprint, defaultProject: opts.defaultProject };
  store.save(profile);
  ctx.out.result(profileView(profile, ctx.profile().name));
  ctx.out.success(`Saved profile ${opts.name} (${url})`);
}
