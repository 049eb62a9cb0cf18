import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { emuctlPaths, type EmuctlPaths } from '../config/paths.js';
import { join } from 'node:path';
import { QEMU_ACCEL_SETTINGS, type QemuAccelSetting } from './compute/qemu/qemu-accel.js';
import { InvalidError } from './errors.js';

export type DaemonRole = 'both' | 'controller' | 'compute';

/** Command-line flags of `emuctl daemon run|start`; every field optional. */
export interface DaemonFlags {
  host?: string;
  port?: number;
  projectsDir?: string;
  config?: string;
  authUser?: string;
  authPasswordFile?: string;
  debug?: boolean;
  logFile?: string;
  role?: DaemonRole;
  imagesDir?: string;
  qemuAccel?: QemuAccelSetting;
}

export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface DaemonSettings {
  host: string;
  port: number;
  projectsDir: string;
  role: DaemonRole;
  debug: boolean;
  logFile?: string;
  auth?: { user: string; password: string };
  /** Request body size limit in bytes. */
  maxBodyBytes: number;
  /** UDP tunnel ports handed out by /ports/udp. */
  udpPortRange: [number, number];
  /** TCP console ports for VPCS. */
  consolePortRange: [number, number];
  /** How long a forwarded call to a remote compute may take. */
  forwardTimeoutMs: number;
  /** Where QEMU images live (default $EMUCTL_HOME/images/QEMU). */
  imagesDir: string;
  /** Largest image upload in bytes. */
  maxImageBytes: number;
  /** QEMU accelerator: auto (KVM when it can run guests, else TCG), kvm or tcg. */
  qemuAccel: QemuAccelSetting;
  paths: EmuctlPaths;
  /** Where each setting came from. */
  sources: Record<string, SettingSource>;
}

const FILE_KEYS = ['host', 'port', 'projects_dir', 'auth_user', 'auth_password', 'role', 'debug', 'log_file',
  'max_body_bytes', 'udp_port_range', 'console_port_range', 'forward_timeout_ms', 'images_dir', 'max_image_bytes', 'qemu_accel'];

/** Resolves the daemon settings: flags > environment (EMUCTL_*) > config file > defaults. */
export async function resolveSettings(flags: DaemonFlags, env: NodeJS.ProcessEnv = process.env): Promise<DaemonSettings> {
  const paths = emuctlPaths(env);
  const file = await readConfigFile(flags.config ?? env.EMUCTL_CONFIG, paths.daemonConfig);
  const sources: Record<string, SettingSource> = {};
  const pick = <T>(name: string, flag: T | undefined, envValue: T | undefined, fileValue: T | undefined, fallback: T): T => {
    if (flag !== undefined) return (sources[name] = 'flag'), flag;
    if (envValue !== undefined) return (sources[name] = 'env'), envValue;
    if (fileValue !== undefined) return (sources[name] = 'file'), fileValue;
    sources[name] = 'default';
    return fallback;
  };

  const host = pick('host', flags.host, env.EMUCTL_HOST || undefined, asString(file, 'host'), '127.0.0.1');
  const port = parsePort(pick('port', flags.port, envNumber(env, 'EMUCTL_PORT'), asNumber(file, 'port'), 3080), 'port', true);
  const projectsDir = pick('projectsDir', flags.projectsDir, env.EMUCTL_PROJECTS_DIR || undefined, asString(file, 'projects_dir'), paths.projectsDir);
  const role = pick<DaemonRole>('role', flags.role, (env.EMUCTL_ROLE as DaemonRole) || undefined, asString(file, 'role') as DaemonRole | undefined, 'both');
  if (!['both', 'controller', 'compute'].includes(role)) throw new InvalidError(`role must be both, controller or compute, not '${role}'`);
  const debug = pick('debug', flags.debug || undefined, env.EMUCTL_DEBUG ? env.EMUCTL_DEBUG !== '0' : undefined, file.debug as boolean | undefined, false);
  const logFile = pick<string | undefined>('logFile', flags.logFile, env.EMUCTL_LOG_FILE || undefined, asString(file, 'log_file'), undefined);

  const authUser = pick<string | undefined>('authUser', flags.authUser, env.EMUCTL_AUTH_USER || undefined, asString(file, 'auth_user'), undefined);
  const passwordFromFlag = flags.authPasswordFile ? (await readFile(flags.authPasswordFile, 'utf8')).replace(/\r?\n$/, '') : undefined;
  const authPassword = pick<string | undefined>('authPassword', passwordFromFlag, env.EMUCTL_AUTH_PASSWORD, asString(file, 'auth_password'), undefined);
  if (authPassword !== undefined && !authUser) throw new InvalidError('an auth password is set but no auth user');
  const imagesDir = pick('imagesDir', flags.imagesDir, env.EMUCTL_IMAGES_DIR || undefined, asString(file, 'images_dir'), join(paths.home, 'images', 'QEMU'));
  const maxImageBytes = pick('maxImageBytes', undefined, envNumber(env, 'EMUCTL_MAX_IMAGE_BYTES'), asNumber(file, 'max_image_bytes'), 64 * 1024 ** 3);
  const qemuAccel = pick<QemuAccelSetting>('qemuAccel', flags.qemuAccel, (env.EMUCTL_QEMU_ACCEL as QemuAccelSetting) || undefined, asString(file, 'qemu_accel') as QemuAccelSetting | undefined, 'auto');
  if (!QEMU_ACCEL_SETTINGS.includes(qemuAccel)) throw new InvalidError(`qemu_accel must be auto, kvm or tcg, not '${qemuAccel}'`);

  return {
    host,
    port,
    projectsDir,
    role,
    debug,
    logFile,
    auth: authUser ? { user: authUser, password: authPassword ?? '' } : undefined,
    maxBodyBytes: asNumber(file, 'max_body_bytes') ?? 1024 * 1024,
    udpPortRange: asRange(file, 'udp_port_range') ?? rangeFromEnv(env.EMUCTL_UDP_PORT_RANGE) ?? [10000, 20000],
    consolePortRange: asRange(file, 'console_port_range') ?? rangeFromEnv(env.EMUCTL_CONSOLE_PORT_RANGE) ?? [5000, 10000],
    forwardTimeoutMs: envNumber(env, 'EMUCTL_FORWARD_TIMEOUT_MS') ?? asNumber(file, 'forward_timeout_ms') ?? 30_000,
    imagesDir,
    maxImageBytes,
    qemuAccel,
    paths,
    sources,
  };
}

async function readConfigFile(explicit: string | undefined, fallback: string): Promise<Record<string, unknown>> {
  const path = explicit ?? (existsSync(fallback) ? fallback : undefined);
  if (!path) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new InvalidError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidError(`config file ${path} must hold a JSON object`);
  const unknown = Object.keys(parsed).filter((k) => !FILE_KEYS.includes(k));
  if (unknown.length) throw new InvalidError(`config file ${path}: unknown setting '${unknown[0]}' (known: ${FILE_KEYS.join(', ')})`);
  return parsed as Record<string, unknown>;
}

function asString(file: Record<string, unknown>, key: string): string | undefined {
  const v = file[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new InvalidError(`config file: ${key} must be a string`);
  return v;
}

function asNumber(file: Record<string, unknown>, key: string): number | undefined {
  const v = file[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new InvalidError(`config file: ${key} must be an integer`);
  return v;
}

function asRange(file: Record<string, unknown>, key: string): [number, number] | undefined {
  const v = file[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => Number.isInteger(n))) throw new InvalidError(`config file: ${key} must be [first, last]`);
  return checkRange([v[0], v[1]], key);
}

function rangeFromEnv(value: string | undefined): [number, number] | undefined {
  if (!value) return undefined;
  const m = /^(\d+)-(\d+)$/.exec(value);
  if (!m) throw new InvalidError(`port range '${value}' must look like 10000-20000`);
  return checkRange([Number(m[1]), Number(m[2])], 'port range');
}

function checkRange([first, last]: [number, number], what: string): [number, number] {
  if (first < 1 || last > 65535 || first > last) throw new InvalidError(`${what} ${first}-${last} is not a valid port range`);
  return [first, last];
}

function envNumber(env: NodeJS.ProcessEnv, key: string): number | undefined {
  const v = env[key];
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw new InvalidError(`${key} must be a number, not '${v}'`);
  return Number(v);
}

function parsePort(port: number, what: string, allowZero = false): number {
  if (!Number.isInteger(port) || port < (allowZero ? 0 : 1) || port > 65535) throw new InvalidError(`${what} ${port} is out of range 1-65535`);
  return port;
}
