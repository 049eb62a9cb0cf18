import { Command, Option } from 'commander';
import type { Context } from '../../cli/context.js';
import type { GlobalOptions } from '../../cli/globals.js';
import { toDaemonCliError } from '../../client/daemon-process.js';
import type { DaemonFlags, DaemonSettings } from '../../daemon/settings.js';
import { collect, parseListenPort, parsePort } from '../shared/options.js';

/** The commander options shared by `daemon run` and `daemon start`. */
export function addDaemonFlags(command: Command): Command {
  return command
    .option('--host <address>', 'address to listen on (default 127.0.0.1; env EMUCTL_HOST)')
    .option('--port <port>', 'TCP port to listen on, 0 for any free one (default 3080; env EMUCTL_PORT)', parseListenPort)
    .option('--projects-dir <dir>', 'where projects are stored (env EMUCTL_PROJECTS_DIR)')
    .option('--config <file>', 'daemon config file, JSON (default: daemon.json in the emuctl home)')
    .option('--auth-user <user>', 'require HTTP basic auth with this user (env EMUCTL_AUTH_USER)')
    .option('--auth-password-file <file>', 'file holding the basic-auth password (env EMUCTL_AUTH_PASSWORD holds the password itself)')
    .addOption(new Option('--role <role>', 'serve as controller, compute or both').choices(['both', 'controller', 'compute']))
    .option('--log-file <file>', 'log to this file instead of stderr')
    .option('--gns3-version <version>', 'GNS3 API version to report, 2.2.N (default 2.2.42; env EMUCTL_GNS3_VERSION)')
    .addOption(new Option('--dataplane <engine>', 'dataplane engine: native (the C addon), js, or auto: native when built (env EMUCTL_DATAPLANE)').choices(['auto', 'native', 'js']))
    .option('--images-dir <dir>', 'where QEMU images are stored (default: images/QEMU in the emuctl home; env EMUCTL_IMAGES_DIR)')
    .addOption(new Option('--qemu-accel <accel>', 'QEMU accelerator (default auto: KVM when it can run guests, else TCG; env EMUCTL_QEMU_ACCEL)').choices(['auto', 'kvm', 'tcg']))
    // Request guard: repeatable, each adds one entry (they replace EMUCTL_CORS_ORIGINS / EMUCTL_ALLOWED_HOSTS and the config file's lists).
    .option('--cors-origin <origin>', 'let pages on this origin (scheme://host[:port]) call the API, with CORS headers; repeatable (env EMUCTL_CORS_ORIGINS)', collect)
    .option('--allowed-host <name>', 'answer requests naming this host (a DNS name the daemon is reached by); repeatable (env EMUCTL_ALLOWED_HOSTS)', collect)
    .option('--tls-cert <file>', 'serve HTTPS and WSS with this PEM certificate (chain) file; needs --tls-key (env EMUCTL_TLS_CERT)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert (env EMUCTL_TLS_KEY)')
    .option('--insecure-no-auth', 'listen on a non-loopback --host without auth all the same (logged as a warning)')
    .option('--web-ui <dir>', 'serve this GNS3 Web UI release directory at /static/web-ui/ (env EMUCTL_WEB_UI)');
}

/** Commander's parsed values of the daemon options: the daemon's flags but --debug, which is global; repeatable options are named in the singular. */
export type DaemonFlagValues = Omit<DaemonFlags, 'debug' | 'corsOrigins' | 'allowedHosts'> & { corsOrigin?: string[]; allowedHost?: string[] };

/** The daemon's flags from the parsed options (and the global --debug). */
export function toDaemonFlags(values: DaemonFlagValues, globals: Pick<GlobalOptions, 'debug'>): DaemonFlags {
  const { corsOrigin, allowedHost, ...rest } = values;
  const flags: DaemonFlags = { ...rest, corsOrigins: corsOrigin, allowedHosts: allowedHost, debug: globals.debug || undefined };
  for (const key of Object.keys(flags) as (keyof DaemonFlags)[]) if (flags[key] === undefined) delete flags[key];
  return flags;
}

/** The `--port` option of `daemon stop|status`, which picks the daemon. */
export function daemonPortOption(): Option {
  return new Option('--port <port>', 'port of the daemon to act on (default: EMUCTL_PORT, the config file, else 3080)').argParser(parsePort);
}

/** Checks what `daemon run` would refuse: a non-loopback bind without auth, unusable TLS files; returns the TLS identity, if any. */
export async function checkedExposure(settings: DaemonSettings): Promise<{ fingerprint: string } | undefined> {
  const { checkExposure } = await import('../../daemon/exposure.js');
  const { loadTlsIdentity } = await import('../../daemon/tls-identity.js');
  try {
    checkExposure(settings);
    return settings.tlsCert ? await loadTlsIdentity(settings.tlsCert, settings.tlsKey!) : undefined;
  } catch (err) {
    throw toDaemonCliError(err);
  }
}

/** The daemon's settings as it will resolve them (flags > EMUCTL_* > config file > defaults). */
export async function daemonSettings(ctx: Context, flags: DaemonFlags): Promise<DaemonSettings> {
  const { resolveSettings } = await import('../../daemon/settings.js');
  try {
    return await resolveSettings(flags, ctx.env);
  } catch (err) {
    throw toDaemonCliError(err);
  }
}
