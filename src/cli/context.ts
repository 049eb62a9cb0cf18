import type { Command } from 'commander';
import type { ApiClient, ApiClientOptions } from '../client/api.js';
import { selectProfile, serverOf, type ActiveProfile } from '../client/active-profile.js';
import type { ServerSession } from '../client/session.js';
import { createSession } from '../client/profile-session.js';
import { openProfileStore, readProfilesData, type ProfileStore, type ProfilesData } from '../client/profiles.js';
import { emuctlPaths, type EmuctlPaths } from '../config/paths.js';
import type { Output } from '../render/output.js';
import { loadFactor } from '../client/pacing.js';
import { UsageError } from './errors.js';
import { readGlobals, type GlobalOptions } from './globals.js';

/**
 * What a command's run() gets. Output is ready at once; the profile, the
 * profiles store and the API client are built on first use, so a command
 * loads only what it needs (got and conf are heavy).
 */
export interface Context {
  readonly out: Output;
  readonly env: NodeJS.ProcessEnv;
  readonly globals: GlobalOptions;
  readonly paths: EmuctlPaths;
  /** The saved profiles, read without loading conf. */
  profilesData(): ProfilesData;
  /** The active profile after --profile/EMUCTL_PROFILE and --url/EMUCTL_URL. */
  profile(): ActiveProfile;
  /** The profiles store, for commands that change profiles. */
  profileStore(): Promise<ProfileStore>;
  /** The API client for the active profile. */
  api(): Promise<ApiClient>;
  /** The active profile's server session: its API version (detected or forced) and its login. */
  session(): ServerSession;
  /** A server session for another profile (e.g. the controller of `compute add`). */
  sessionFor(profile: ActiveProfile): ServerSession;
  /** An API client for another server (e.g. a daemon found by its pid file). */
  apiFor(options: ApiClientOptions): Promise<ApiClient>;
  /** Writes a debug line to stderr when --debug is on. */
  debug(line: string): void;
  /** Everything on standard input (e.g. `profile add --password-stdin`). */
  readStdin(): Promise<string>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** Builds a context for one command run. */
export function createContext(
  out: Output,
  env: NodeJS.ProcessEnv,
  globals: GlobalOptions,
  stdin?: NodeJS.ReadableStream,
): Context {
  const paths = emuctlPaths(env);
  let data: ProfilesData | undefined;
  let active: ActiveProfile | undefined;
  let api: Promise<ApiClient> | undefined;
  let session: ServerSession | undefined;
  const debug = (line: string) => {
    if (globals.debug) out.writeErr(`${out.errStyle.dim(`debug: ${line}`)}\n`);
  };
  const ctx: Context = {
    out,
    env,
    globals,
    paths,
    profilesData: () => (data ??= readProfilesData(paths)),
    profile: () => (active ??= selectProfile(ctx.profilesData(), { profile: globals.profile, url: globals.url, caFile: globals.caFile, fingerprint: globals.fingerprint, env })),
    profileStore: () => openProfileStore(paths),
    api: () => (api ??= ctx.apiFor({ ...serverOf(ctx.profile()), session: ctx.session() })),
    session: () => (session ??= ctx.sessionFor(ctx.profile())),
    sessionFor: (profile) => createSession(profile, { paths, env, forced: globals.api, timeoutMs: requestTimeoutMs(env), debug: globals.debug ? debug : undefined }),
    async apiFor(options) {
      const { createApiClient } = await import('../client/got-client.js');
      return createApiClient({ timeoutMs: requestTimeoutMs(env), debug: globals.debug ? debug : undefined, ...options });
    },
    debug,
    // process.stdin is a getter that opens the stream (~2 ms): only when a command reads it.
    readStdin: () => readAll(stdin ?? process.stdin),
  };
  return ctx;
}

/** The request timeout: EMUCTL_TIMEOUT seconds; by default 10 s times the load per core of this machine, at most 120 s. */
export function requestTimeoutMs(env: NodeJS.ProcessEnv, load = loadFactor()): number {
  const raw = env.EMUCTL_TIMEOUT;
  // A machine this loaded answers that much later: 10 s per answer when idle, up to 120 s.
  if (raw === undefined || raw === '') return Math.round(Math.min(120_000, 10_000 * load));
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`EMUCTL_TIMEOUT must be a positive number of seconds, not "${raw}"`);
  }
  return Math.round(seconds * 1000);
}

/** Makes contexts for the commands of one CLI run (one output object, one environment). */
export interface Factory {
  readonly out: Output;
  readonly env: NodeJS.ProcessEnv;
  /** Applies the global options of `command` to the output and returns its context. */
  context(command: Command): Promise<Context>;
}

/** The factory for one CLI run. */
export function createFactory(out: Output, env: NodeJS.ProcessEnv, stdin?: NodeJS.ReadableStream): Factory {
  return {
    out,
    env,
    async context(command) {
      const globals = readGlobals(command);
      await out.configure({ json: globals.json, quiet: globals.quiet, color: globals.color });
      return createContext(out, env, globals, stdin);
    },
  };
}
