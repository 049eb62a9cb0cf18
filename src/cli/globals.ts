import type { Command } from 'commander';

/** Options every command accepts. */
export interface GlobalOptions {
  profile?: string;
  url?: string;
  /** Trust for https servers (--ca-file, --fingerprint). */
  caFile?: string;
  fingerprint?: string;
  /** --api v2|v3: the API version to speak, instead of the profile's or a detected one. */
  api?: string;
  json: boolean;
  color: boolean;
  quiet: boolean;
  debug: boolean;
}

/**
 * Adds the global options to the root command. Commander recognises them after any
 * subcommand too, so no subcommand may declare an option of the same name
 * (`profile add --url` reads the global --url).
 */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--profile <name>', 'profile to use (default: the one chosen with "profile use", else local)')
    .option('--url <url>', "server URL, overriding the profile's")
    .option('--ca-file <file>', "for https: trust the CA certificates in this PEM file instead of the system's (env EMUCTL_CA_FILE)")
    .option('--fingerprint <sha256>', "for https: trust only the certificate with this SHA-256 fingerprint, as the daemon prints it (env EMUCTL_FINGERPRINT)")
    .option('--api <version>', 'speak the GNS3 API v2 or v3 instead of detecting it (env EMUCTL_API)')
    .option('--json', 'print machine-readable JSON on stdout and nothing else there')
    .option('--no-color', 'never colour the output (NO_COLOR does the same)')
    .option('-q, --quiet', 'print only results and errors')
    .option('--debug', 'log each HTTP request to stderr; debug logging for the daemon');
}

/** Reads the global options from a command (its own and its ancestors'). */
export function readGlobals(command: Command): GlobalOptions {
  const o = command.optsWithGlobals<Record<string, unknown>>();
  return {
    profile: typeof o.profile === 'string' ? o.profile : undefined,
    url: typeof o.url === 'string' ? o.url : undefined,
    caFile: typeof o.caFile === 'string' ? o.caFile : undefined,
    fingerprint: typeof o.fingerprint === 'string' ? o.fingerprint : undefined,
    api: typeof o.api === 'string' ? o.api : undefined,
    json: o.json === true,
    color: o.color !== false,
    quiet: o.quiet === true,
    debug: o.debug === true,
  };
}
