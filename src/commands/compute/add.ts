import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { addCompute, computeAddressOf, computeUrl } from '../../client/computes.js';
import { savedTrust } from '../shared/tls-options.js';
import { controllerApi } from './controller-api.js';
import { computeLabel } from './render.js';

/** Options of `compute add`. */
export interface ComputeAddOptions {
  name: string;
  /** The compute's URL, from the global --url (commander gives it to the root). */
  url?: string;
  user?: string;
  passwordStdin: boolean;
}

/** `emuctl compute add NAME --url URL [--user U] [--password-stdin]`. */
export function computeAddCommand(f: Factory, run = runComputeAdd): Command {
  return new Command('add')
    .description('register a remote compute with the controller')
    .usage('<name> --url <url> [--user <user>] [--password-stdin] [--ca-file <file> | --fingerprint <sha256>]')
    .argument('<name>', 'compute name')
    .option('--user <user>', "user name for the compute's HTTP basic auth")
    .option('--password-stdin', 'read the password from standard input (never from the command line)')
    .addHelpText('after', '\nThe compute URL is given with the global --url option, e.g. --url http://10.0.0.2:3080;\n'
      + 'for https, --ca-file FILE (sent to the controller as the CA to trust) or --fingerprint SHA256 (the certificate to pin);\n'
      + 'the controller is the profile\'s server (--profile, EMUCTL_PROFILE or EMUCTL_URL).')
    .action(async (name: string, flags: { user?: string; passwordStdin?: boolean }, cmd: Command) => {
      const ctx = await f.context(cmd);
      await run({ name, url: ctx.globals.url, user: flags.user, passwordStdin: flags.passwordStdin === true }, ctx);
    });
}

/** Registers the compute (POST /v2/computes) on the profile's controller and reports whether it is connected. */
export async function runComputeAdd(opts: ComputeAddOptions, ctx: Context): Promise<void> {
  if (!opts.url) throw new UsageError('compute add needs --url URL, e.g. --url http://10.0.0.2:3080');
  const address = computeAddressOf(opts.url);
  if (opts.passwordStdin && !opts.user) throw new UsageError('--password-stdin needs --user');
  const password = opts.passwordStdin ? (await ctx.readStdin()).replace(/\r?\n$/, '') : undefined;
  const { caPem, fingerprint } = await savedTrust(ctx, opts.url);
  const compute = await addCompute(await controllerApi(ctx), { name: opts.name, ...address, user: opts.user, password, ca_cert: caPem, fingerprint });
  ctx.out.result(compute);
  ctx.out.success(`Added compute ${computeLabel(compute)} at ${computeUrl(compute)}`);
  if (!compute.connected && !ctx.out.json) ctx.out.warn(`not connected yet${compute.last_error ? `: ${compute.last_error}` : ''}`);
}
