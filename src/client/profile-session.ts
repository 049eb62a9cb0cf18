import type { EmuctlPaths } from '../config/paths.js';
import type { ActiveProfile } from './active-profile.js';
import { unreachableHint } from './active-profile.js';
import { parseApiVersion, type ApiVersion } from './api-version.js';
import { LOCAL_PROFILE } from './profiles.js';
import { ServerSession } from './session.js';
import { readTokens, writeToken } from './tokens.js';

/** What the session of a profile depends on besides the profile. */
export interface ProfileSessionOptions {
  paths: EmuctlPaths;
  env: NodeJS.ProcessEnv;
  /** --api, if given. */
  forced?: string;
  timeoutMs: number;
  debug?: (line: string) => void;
}

/**
 * The API version to speak to a profile's server when it is known without asking: --api, then
 * EMUCTL_API, then the version saved in the profile (for its own URL); the built-in `local`
 * profile at its default URL is the emuctl daemon, which speaks v2. Undefined: detect it.
 */
export function knownApiVersion(profile: ActiveProfile, forced: string | undefined, env: NodeJS.ProcessEnv): ApiVersion | undefined {
  if (forced) return parseApiVersion(forced);
  if (env.EMUCTL_API) return parseApiVersion(env.EMUCTL_API, 'EMUCTL_API');
  if (profile.urlSource !== 'saved') return undefined;
  if (profile.api) return profile.api;
  return profile.name === LOCAL_PROFILE.name && profile.url === LOCAL_PROFILE.url ? 'v2' : undefined;
}

/** The session of a profile: its server, credentials (password from EMUCTL_PASSWORD when the profile has none) and kept token. */
export function createSession(profile: ActiveProfile, opts: ProfileSessionOptions): ServerSession {
  return new ServerSession({
    url: profile.url,
    user: profile.user,
    password: profile.password ?? (opts.env.EMUCTL_PASSWORD || undefined),
    trust: { caFile: profile.caFile, fingerprint: profile.fingerprint },
    api: knownApiVersion(profile, opts.forced, opts.env),
    tokens: {
      load: () => readTokens(opts.paths)[profile.name],
      save: (token) => writeToken(opts.paths, profile.name, token),
    },
    timeoutMs: opts.timeoutMs,
    unreachableHint: unreachableHint(profile.url),
    debug: opts.debug,
  });
}
