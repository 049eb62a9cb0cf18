import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Every file location emuctl uses, derived from one home directory.
 * EMUCTL_HOME overrides it (tests point it at a temp dir); otherwise
 * $XDG_DATA_HOME/emuctl or ~/.local/share/emuctl.
 */
export function emuctlHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EMUCTL_HOME) return env.EMUCTL_HOME;
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(dataHome, 'emuctl');
}

/** Where each file lives under a home; several daemons on one machine are told apart by their port. */
export function pathsUnder(home: string) {
  return {
    home,
    /** CLI profiles (conf store, mode 0600). */
    profilesDir: home,
    profilesName: 'profiles',
    /** Default projects directory of a daemon. */
    projectsDir: join(home, 'projects'),
    /** Optional daemon config file (JSON). */
    daemonConfig: join(home, 'daemon.json'),
    /** Registered computes of a controller listening on `port` (mode 0600: holds passwords). */
    computesFile: (port: number) => join(home, 'state', `computes-${port}.json`),
    /** Where pid files and process registries (one per daemon, see process-registry.ts) live. */
    runDir: join(home, 'run'),
    /** Custom (non built-in) templates of a controller listening on `port`. */
    templatesFile: (port: number) => join(home, 'state', `templates-${port}.json`),
    /** GNS3 VM and IOU licence settings a controller on `port` was given (GUI settings it keeps but cannot use). */
    guiSettingsFile: (port: number) => join(home, 'state', `gui-settings-${port}.json`),
    /** Pid file of the daemon listening on `port`: JSON {pid, url, startedAt, startTime, cmdline}. */
    pidFile: (port: number) => join(home, 'run', `daemon-${port}.pid`),
    /** Log file of a detached daemon listening on `port`. */
    logFile: (port: number) => join(home, 'log', `daemon-${port}.log`),
  };
}

export type EmuctlPaths = ReturnType<typeof pathsUnder>;

/** The paths for the current environment. */
export function emuctlPaths(env: NodeJS.ProcessEnv = process.env): EmuctlPaths {
  return pathsUnder(emuctlHome(env));
}
