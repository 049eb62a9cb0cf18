import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UsageError } from '../../cli/errors.js';
import { checkProfileName, checkServerUrl, findProfile, type Profile } from '../../client/profiles.js';
import { savedTrust } from '../shared/tls-options.js';
import { CliError } from '../../cli/errors.js';
import { createSession } from '../../client/profile-session.js';
import { requestTimeoutMs } from '../../cli/context.js';
import type { ApiVersion } from '../../client/api-version.js';
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
  const password = opts.passwordStdin ? (await ctx.readStdin()).replace(/\r?\n$/, '') : opts.user !== undefined ? (ctx.env.EMUCTL_PASSWORD || undefined) : undefined;

  const store = await ctx.profileStore();
  const saved = opts.name !== 'local' || Object.hasOwn(store.data().profiles, 'local');
  if (saved && findProfile(store.data(), opts.name) && !opts.force) {
    throw new OperationError(`profile "${opts.name}" already exists; add --force to replace it`);
  }
  const { caFile, fingerprint } = await savedTrust(ctx, url);
  const profile: Profile = { name: opts.name, url, user: opts.user, password, caFile, fingerprint, defaultProject: opts.defaultProject };
  profile.api = await detectApi(profile, ctx);
  store.save(profile);
  ctx.out.result(profileView(profile, ctx.profile().name));
  ctx.out.success(`Saved profile ${opts.name} (${url}${profile.api ? `, GNS3 API ${profile.api}` : ''})`);
}

/**
 * The API version of the new profile's server: --api, else asked (/v3/version, then /v2/version).
 * A server that cannot be asked now leaves it unknown (detected on use), with a warning.
 */
async function detectApi(profile: Profile, ctx: Context): Promise<ApiVersion | undefined> {
  const session = createSession({ ...profile, source: 'flag', urlSource: 'saved' }, { paths: ctx.paths, env: {}, forced: ctx.globals.api ?? (ctx.env.EMUCTL_API || undefined), timeoutMs: Math.min(requestTimeoutMs(ctx.env), 5000), debug: ctx.globals.debug ? (line) => ctx.debug(line) : undefined });
  try {
    return await session.api();
  } catch (err) {
    if (!(err instanceof CliError) || err.exitCode === 2) throw err;
    ctx.out.warn(`could not ask ${profile.url} which GNS3 API it speaks (${err.message}); it will be asked on first use`);
    return undefined;
  }
}
