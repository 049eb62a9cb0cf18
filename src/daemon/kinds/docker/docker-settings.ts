import { posix } from 'node:path';
import { ConflictError, InvalidError } from '../../errors.js';
import type { FromSchema } from '../../schemas/validation.js';
import { DEFAULT_CAPABILITIES } from './containment.js';
import type { DOCKER_CREATE_SCHEMA } from './docker-schemas.js';
import { ShellWordsError, splitShellWords } from '../../../util/shell-words.js';

type DockerCreate = FromSchema<typeof DOCKER_CREATE_SCHEMA>;

/** A docker node's settings, as its JSON shows them (GNS3 2.2's names, plus `cap_add` and `privileged`). */
export interface DockerSettings {
  image: string;
  adapters: number;
  start_command: string | null;
  environment: string | null;
  console_type: 'telnet' | 'vnc' | 'http' | 'https' | 'none';
  console_resolution: string;
  console_http_port: number;
  console_http_path: string;
  extra_hosts: string | null;
  extra_volumes: string[];
  usage: string;
  cap_add: string[];
  privileged: boolean;
  /** emuctl: the addresses (with prefix length) of the management interface; null when the project has no management network. */
  mgmt_ipv4: string | null;
  mgmt_ipv6: string | null;
  aux_type: 'telnet' | 'none';
  /** GNS3's per-adapter settings; a `mac_address` is given to that adapter's ethN. */
  custom_adapters: { adapter_number: number; port_name?: string; adapter_type?: string; mac_address?: string }[];
}

/** GNS3 2.2's defaults for a new docker node. */
export function defaultSettings(image: string): DockerSettings {
  return {
    image, adapters: 1, start_command: null, environment: null, console_type: 'telnet', console_resolution: '1024x768',
    console_http_port: 80, console_http_path: '/', extra_hosts: null, extra_volumes: [], usage: '', cap_add: [...DEFAULT_CAPABILITIES], privileged: false,
    mgmt_ipv4: null, mgmt_ipv6: null, aux_type: 'telnet', custom_adapters: [],
  };
}

/** The settings with a client's changes applied, every value that reaches Docker checked (InvalidError). */
export function applySettings(current: DockerSettings, body: Partial<DockerCreate>): DockerSettings {
  const next = { ...current };
  for (const key of Object.keys(current) as (keyof DockerSettings)[]) {
    const value = body[key];
    if (value === undefined) continue;
    if (value === null && (key === 'adapters' || key === 'extra_volumes')) continue;
    (next as Record<string, unknown>)[key] = value;
  }
  checkImageName(next.image);
  parseEnvironment(next.environment);
  parseExtraHosts(next.extra_hosts);
  for (const v of next.extra_volumes) volumePath(v);
  if (next.start_command) splitCommand(next.start_command);
  return next;
}

/** A console type this compute cannot serve is a 409 naming what it can. */
export function checkConsoleType(type: string): void {
  if (type !== 'telnet' && type !== 'none') throw new ConflictError(`console_type ${type} is not supported for docker nodes by this compute (telnet or none)`);
}

/**
 * Docker's reference grammar, less loose: [registry/]path[:tag][@digest], lower-case path components.
 * A first component is a registry only when it has a dot or a port, or is localhost (Docker's rule).
 */
const IMAGE_NAME = /^(?:(?:localhost|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+|[a-zA-Z0-9.-]+:[0-9]{1,5})(?::[0-9]{1,5})?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** An image reference Docker will take as a name, never as an option or a path (400 otherwise). */
export function checkImageName(image: string): string {
  if (image.length > 255 || !IMAGE_NAME.test(image)) throw new InvalidError(`image '${image}' is not a valid Docker image name`);
  return image;
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** GNS3's `environment`: KEY=VALUE lines (blank lines ignored); a key must be a plain name. */
export function parseEnvironment(environment: string | null): string[] {
  const out: string[] = [];
  for (const line of (environment ?? '').split('\n')) {
    const trimmed = line.replace(/\r$/, '');
    if (!trimmed.trim()) continue;
    const eq = trimmed.indexOf('=');
    const key = eq < 0 ? trimmed : trimmed.slice(0, eq);
    if (!ENV_KEY.test(key)) throw new InvalidError(`environment: '${key}' is not a valid variable name (letters, digits, _ . -; not starting with a digit)`);
    if (trimmed.includes('\0')) throw new InvalidError(`environment: the value of ${key} holds a NUL byte`);
    out.push(eq < 0 ? `${key}=` : trimmed);
  }
  return out;
}

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/** GNS3's `extra_hosts`: `host:ip` lines, the /etc/hosts entries Docker writes (its ExtraHosts). */
export function parseExtraHosts(extraHosts: string | null): string[] {
  const out: string[] = [];
  for (const line of (extraHosts ?? '').split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const colon = trimmed.indexOf(':');
    const host = trimmed.slice(0, colon).trim();
    const ip = trimmed.slice(colon + 1).trim();
    if (colon < 0 || !HOST_NAME.test(host) || !(IPV4.test(ip) || (IPV6.test(ip) && ip.includes(':')))) {
      throw new InvalidError(`extra_hosts: '${trimmed}' is not host:address (a host name, then an IPv4 or IPv6 address)`);
    }
    out.push(`${host}:${ip}`);
  }
  return out;
}

const VOLUME_SEGMENT = /^[A-Za-z0-9_@+.,-]+$/;

/** An `extra_volumes` entry as a clean absolute container path (`/etc/frr`): no `..`, no odd characters, not `/`. */
export function volumePath(volume: string): string {
  const segments = volume.split('/').filter((s) => s !== '' && s !== '.');
  if (!volume.startsWith('/') || segments.length === 0 || segments.some((s) => s === '..' || !VOLUME_SEGMENT.test(s))) {
    throw new InvalidError(`extra_volumes: '${volume}' must be an absolute path inside the container, of plain names (no '..', not '/')`);
  }
  return posix.join('/', ...segments);
}

/**
 * The volumes a container gets: each `extra_volumes` path once, and none inside another (GNS3 keeps
 * the outer one too). A nested one would let the container, through the outer volume, put a link
 * where Docker binds the inner one from at the next start: a host directory of its choosing.
 */
export function volumeMounts(extraVolumes: readonly string[]): string[] {
  const paths = [...new Set(extraVolumes.map(volumePath))];
  return paths.filter((p) => !paths.some((outer) => outer !== p && (outer === '/' || p.startsWith(`${outer}/`))));
}

/** Splits a start_command into words as a POSIX shell would (shlex.split, which GNS3 uses), expanding nothing (util/shell-words.ts). */
export function splitCommand(command: string): string[] {
  try {
    return splitShellWords(command);
  } catch (err) {
    if (err instanceof ShellWordsError) throw new InvalidError(err.problem === 'quote' ? `start_command has an ${err.message}` : `start_command ${err.message}`);
    throw err;
  }
}
