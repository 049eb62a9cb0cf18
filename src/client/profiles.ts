import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperationError, UsageError } from './errors.js';
import type { EmuctlPaths } from '../config/paths.js';
import type { ApiVersion } from './api-version.js';

/** A saved connection to a GNS3 server (API v2 or v3) or an emuctl daemon. */
export interface Profile {
  name: string;
  url: string;
  /** The API version the server speaks, as detected by `profile add` (or forced with --api). */
  api?: ApiVersion;
  user?: string;
  password?: string;
  /** For https: a CA file (PEM) trusted instead of the system CAs. */
  caFile?: string;
  /** For https: the pinned SHA-256 fingerprint (colon-hex) of the server's certificate, checked instead of its chain. */
  fingerprint?: string;
  /** Project used when a command needs one and none is given (a name or UUID). */
  defaultProject?: string;
  /**
   * The default project's name, kept beside its UUID by `project use`: a command then reaches
   * the project by its UUID without listing the projects, and by this name once the UUID is gone.
   */
  defaultProjectName?: string;
}

/** What the profiles file holds (JSON written by conf). */
export interface ProfilesData {
  current?: string;
  profiles: Record<string, Omit<Profile, 'name'>>;
}

/** The built-in profile: the local daemon. It always exists; a saved `local` entry overrides its fields. */
export const LOCAL_PROFILE: Readonly<Profile> = { name: 'local', url: 'http://127.0.0.1:3080' };

/** Shown instead of a password, everywhere. */
export const PASSWORD_MASK = '********';

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Path of the profiles file. */
export function profilesFile(paths: EmuctlPaths): string {
  return join(paths.profilesDir, `${paths.profilesName}.json`);
}

/** Reads the profiles file without loading conf (the common, read-only case); a missing file is empty. */
export function readProfilesData(paths: EmuctlPaths): ProfilesData {
  const file = profilesFile(paths);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new OperationError(`cannot read profiles file ${file}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<ProfilesData>;
    return { current: data.current, profiles: data.profiles ?? {} };
  } catch {
    throw new OperationError(`profiles file ${file} is not valid JSON; fix or remove it`);
  }
}

/** Every profile, the built-in `local` first (with any saved overrides), then the saved ones by name. */
export function allProfiles(data: ProfilesData): Profile[] {
  const saved = Object.keys(data.profiles).filter((name) => name !== 'local').sort();
  return [findProfile(data, 'local')!, ...saved.map((name) => ({ ...data.profiles[name], name }))];
}

/** The profile called `name`, or undefined. */
export function findProfile(data: ProfilesData, name: string): Profile | undefined {
  const saved = Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined;
  if (name === 'local') return { ...LOCAL_PROFILE, ...saved, name };
  return saved ? { ...saved, name } : undefined;
}

/** The profile called `name`, or a usage error naming the known ones. */
export function requireProfile(data: ProfilesData, name: string): Profile {
  const profile = findProfile(data, name);
  if (!profile) {
    const known = allProfiles(data).map((p) => p.name).join(', ');
    throw new UsageError(`no profile named "${name}"; known: ${known}`);
  }
  return profile;
}

/** Name of the profile chosen with `profile use` (or `local`). */
export function currentProfileName(data: ProfilesData): string {
  return data.current && findProfile(data, data.current) ? data.current : 'local';
}

/** Checks a profile name: letters, digits, `_` and `-`, at most 64 characters. */
export function checkProfileName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new UsageError(`invalid profile name "${name}": use letters, digits, '_' and '-' (at most 64)`);
  }
}

/** Checks a server URL (http or https, no path beyond /) and returns it normalised. */
export function checkServerUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid URL "${url}": expected e.g. http://host:3080`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`invalid URL "${url}": only http and https are supported`);
  }
  if (parsed.username || parsed.password) {
    throw new UsageError('put credentials in --user and --password-stdin, not in the URL');
  }
  return parsed.origin + parsed.pathname.replace(/\/+$/, '');
}

/** A copy safe to print: the password replaced by the mask. */
export function maskProfile(profile: Profile): Profile {
  return profile.password === undefined ? { ...profile } : { ...profile, password: PASSWORD_MASK };
}

/** Writes to the profiles file through conf; the file is kept at mode 0600 in a 0700 directory. */
export interface ProfileStore {
  readonly file: string;
  data(): ProfilesData;
  /** Saves (creates or replaces) a profile. */
  save(profile: Profile): void;
  remove(name: string): void;
  setCurrent(name: string | undefined): void;
}

/** Opens the profiles store (loads conf, so only commands that write call this). */
export async function openProfileStore(paths: EmuctlPaths): Promise<ProfileStore> {
  const { default: Conf } = await import('conf');
  mkdirSync(paths.profilesDir, { recursive: true, mode: 0o700 });
  const conf = new Conf<ProfilesData>({
    cwd: paths.profilesDir,
    configName: paths.profilesName,
    projectName: 'emuctl',
    defaults: { profiles: {} },
    configFileMode: 0o600,
    // Profile names never contain dots, but stay literal anyway.
    accessPropertiesByDotNotation: false,
  });
  // conf honours the mode only when it creates the file (and the umask may widen it): enforce it after each write.
  const secure = () => {
    if (existsSync(conf.path)) chmodSync(conf.path, 0o600);
  };
  secure();
  const data = (): ProfilesData => ({ current: conf.get('current'), profiles: { ...conf.get('profiles') } });
  return {
    file: conf.path,
    data,
    save(profile) {
      const { name, ...fields } = profile;
      conf.set('profiles', { ...data().profiles, [name]: fields });
      secure();
    },
    remove(name) {
      const { [name]: _removed, ...rest } = data().profiles;
      conf.set('profiles', rest);
      if (conf.get('current') === name) conf.delete('current');
      secure();
    },
    setCurrent(name) {
      if (name === undefined) conf.delete('current');
      else conf.set('current', name);
      secure();
    },
  };
}
