import { checkServerUrl, currentProfileName, requireProfile, type Profile, type ProfilesData } from './profiles.js';
import type { ApiClientOptions } from './api.js';
import { UsageError } from './errors.js';
import { FINGERPRINT_HINT, parseFingerprint } from '../util/tls-fingerprint.js';

/** Where a choice came from: a command-line flag, the environment, the saved `profile use`, or the default. */
export type ChoiceSource = 'flag' | 'env' | 'saved' | 'default';

/** The profile a command talks through, after --profile, EMUCTL_PROFILE, --url and EMUCTL_URL. */
export interface ActiveProfile extends Profile {
  /** Where the profile name came from. */
  source: ChoiceSource;
  /** Where the URL came from ('saved' = the profile's own URL). */
  urlSource: ChoiceSource;
}

/** The overrides a command line and environment can give. */
export interface ProfileOverrides {
  profile?: string;
  url?: string;
  caFile?: string;
  fingerprint?: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Chooses the profile: --profile > EMUCTL_PROFILE > `profile use` > `local`;
 * then the URL: --url > EMUCTL_URL > the profile's. The profile's credentials
 * and default project are kept when only the URL is overridden.
 */
export function selectProfile(data: ProfilesData, overrides: ProfileOverrides): ActiveProfile {
  const { env } = overrides;
  const [name, source]: [string, ChoiceSource] = overrides.profile ? [overrides.profile, 'flag']
    : env.EMUCTL_PROFILE ? [env.EMUCTL_PROFILE, 'env']
      : data.current ? [currentProfileName(data), 'saved'] : ['local', 'default'];
  const profile = requireProfile(data, name);
  const [url, urlSource]: [string, ChoiceSource] = overrides.url ? [checkServerUrl(overrides.url), 'flag']
    : env.EMUCTL_URL ? [checkServerUrl(env.EMUCTL_URL), 'env'] : [profile.url, 'saved'];
  const caFile = overrides.caFile ?? (env.EMUCTL_CA_FILE || undefined);
  const fingerprintText = overrides.fingerprint ?? (env.EMUCTL_FINGERPRINT || undefined);
  const trust = caFile || fingerprintText ? { caFile, fingerprint: fingerprintText === undefined ? undefined : checkedFingerprint(fingerprintText) }
    : { caFile: profile.caFile, fingerprint: profile.fingerprint };
  return { ...profile, ...trust, url, source, urlSource };
}

/** A fingerprint given on the command line or in the environment, in canonical form; a usage error if it is not one. */
export function checkedFingerprint(text: string): string {
  const fingerprint = parseFingerprint(text);
  if (!fingerprint) throw new UsageError(`invalid fingerprint "${text}": expected ${FINGERPRINT_HINT}`);
  return fingerprint;
}

/** How to reach the profile's server: URL, credentials, certificate trust and the hint for when it does not answer. */
export function serverOf(profile: Profile): Pick<ApiClientOptions, 'url' | 'user' | 'password' | 'trust' | 'unreachableHint'> {
  return {
    url: profile.url,
    user: profile.user,
    password: profile.password,
    trust: { caFile: profile.caFile, fingerprint: profile.fingerprint },
    unreachableHint: unreachableHint(profile.url),
  };
}

/** True when `url` points at this machine (then a missing server is likely a stopped local daemon). */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
}

/** The hint for a server that cannot be reached: start the local daemon, when the URL is local. */
export function unreachableHint(url: string): string | undefined {
  if (!isLoopbackUrl(url)) return undefined;
  const port = new URL(url).port || '80';
  return port === '3080' ? "is the daemon running? run 'emuctl daemon start'"
    : `is the daemon running? run 'emuctl daemon start --port ${port}'`;
}
