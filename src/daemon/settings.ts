import { readFile, realpath, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { emuctlPaths, type EmuctlPaths } from '../config/paths.js';
import { join } from 'node:path';
import { QEMU_ACCEL_SETTINGS, type QemuAccelSetting } from './kinds/qemu/qemu-accel.js';
import { InvalidError } from './errors.js';
import { checkCloudInterfaces } from './compute/host-interface-policy.js';
import { parseSubnet } from './kinds/nat/subnet.js';
import { allowedHostName, parseOrigin } from './http/own-names.js';
import { managementSubnet } from './controller/management/addressing.js';

export type DaemonRole = 'both' | 'controller' | 'compute';
export type PortRange = [number, number];

/** The settings a flag can give (the CLI exposes some; tests and embedders may give any). */
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
  maxBodyBytes?: number;
  jsonMaxDepth?: number;
  jsonMaxItems?: number;
  udpPortRange?: PortRange;
  consolePortRange?: PortRange;
  forwardTimeoutMs?: number;
  computeTimeoutMs?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
  maxStreams?: number;
  authMaxFailures?: number;
  authBackoffMs?: number;
  gns3Version?: string;
  dataplane?: DataplaneEngine;
  imagesDir?: string;
  maxImageBytes?: number;
  qemuAccel?: QemuAccelSetting;
  memoryLogSeconds?: number;
  // Request guard (browsers, other sites, DNS rebinding).
  corsOrigins?: string[];
  allowedHosts?: string[];
  // Exposing the daemon: TLS, and the auth requirement beyond loopback.
  tlsCert?: string;
  tlsKey?: string;
  insecureNoAuth?: boolean;
  webUi?: string;
  // What reaches a command line: QEMU options unchecked.
  qemuUnsafeOptions?: boolean;
  // Docker nodes: privileged and every capability allowed; registries an image may name.
  dockerUnsafeCaps?: boolean;
  dockerRegistries?: string[];
  // Imported archives (issue 17).
  maxImportBytes?: number;
  maxImportExpandedBytes?: number;
  maxImportEntries?: number;
  maxImportRatio?: number;
  // VPCS confinement: off, VPCS runs without the shim that stops `!` commands, writes outside its directory, wildcard binds.
  vpcsUnconfined?: boolean;
  // NAT node: the lab subnet behind emuctl's own bridge.
  natSubnet?: string;
  // Management networks: the ranges `auto` takes each lab's subnets from.
  mgmtRange?: string;
  mgmtRangeIpv6?: string;
  // Management networks: whether this compute lets a lab's network route out (mgmt: {nat: true}).
  mgmtNat?: boolean;
  // TAP offloads: TCP segments of up to 64 KB cross the native dataplane whole.
  tapOffload?: boolean;
  // Cloud nodes: the host interfaces they may bridge (names or prefix*); unset: all but the loopback and emuctl's own.
  cloudInterfaces?: string[];
  // GNS3 appliances and symbols (issue 32).
  appliancesDir?: string;
  symbolsDir?: string;
}

/** Which dataplane engine runs the compute's frames: the C addon, the TypeScript engine, or native when built. */
export type DataplaneEngine = 'auto' | 'native' | 'js';

export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface DaemonSettings {
  host: string;
  port: number;
  projectsDir: string;
  role: DaemonRole;
  /** The GNS3 API version reported by /v2/version and capabilities (`2.2.N`). */
  gns3Version: string;
  dataplane: DataplaneEngine;
  debug: boolean;
  logFile?: string;
  auth?: { user: string; password: string };
  /** Request body size limit in bytes. */
  maxBodyBytes: number;
  /** How deep a JSON body may nest. */
  jsonMaxDepth: number;
  /** How many items a JSON array, or keys a JSON object, may hold. */
  jsonMaxItems: number;
  /** UDP tunnel ports handed out by /ports/udp. */
  udpPortRange: PortRange;
  /** TCP console ports for VPCS. */
  consolePortRange: PortRange;
  /** How long a forwarded call to a remote compute may take. */
  forwardTimeoutMs: number;
  /** How long one call from the controller to a remote compute may take (node and link changes wait for it). */
  computeTimeoutMs: number;
  /** How long a client may take to send the request headers. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request (long-lived streams are exempt once answered). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; more are refused (and logged), or take the place of the greediest address's connection still waiting for its headers. */
  maxConnections: number;
  /** max_connections_per_address: open connections from one client address at most; more are refused at once (and logged). */
  maxConnectionsPerAddress: number;
  /** Long-lived streams (pcap, notifications) open at once at most. */
  maxStreams: number;
  /** Wrong passwords from one address before it must wait (429). */
  authMaxFailures: number;
  /** First wait after too many wrong passwords; it doubles on each further round. */
  authBackoffMs: number;
  /** Where QEMU images live (default $EMUCTL_HOME/images/QEMU). */
  imagesDir: string;
  /** Largest image upload in bytes. */
  maxImageBytes: number;
  /** QEMU accelerator: auto (KVM when it can run guests, else TCG), kvm or tcg. */
  qemuAccel: QemuAccelSetting;
  /** qemu_unsafe_options: a QEMU node's `options` pass to QEMU unchecked (a trusted single-user install); off by default. */
  qemuUnsafeOptions: boolean;
  // Docker nodes.
  /** docker_unsafe_caps: docker nodes may be privileged and ask for any capability (a trusted single-user install); off by default. */
  dockerUnsafeCaps: boolean;
  /** docker_registries: registries (`host[:port]`) an image may name although they are local, IP literals or have a port. */
  dockerRegistries: string[];
  // VPCS confinement.
  /** vpcs_unconfined: VPCS starts without native/vpcs-confine.c (its console runs host commands); off by default. */
  vpcsUnconfined: boolean;
  // NAT node.
  /** nat_subnet: the IPv4 subnet behind NAT nodes (the bridge takes its first address, dnsmasq leases the rest); refused when it overlaps a host route. */
  natSubnet: string;
  // Management networks.
  /** mgmt_range: the IPv4 range a lab's `auto` management subnet (a /24 of it) is taken from. */
  mgmtRange: string;
  /** mgmt_range_ipv6: the IPv6 range a lab's `auto` management subnet (a /64 of it) is taken from. */
  mgmtRangeIpv6: string;
  /** mgmt_nat: a lab's management network may route out, IPv4 masqueraded, when the lab asks (`nat: true`); false refuses it (409). On by default. */
  mgmtNat: boolean;
  // TAP offloads.
  /** tap_offload: the native dataplane opens TAPs with virtio headers and TCP offloads (native/offload.c); on by default. */
  tapOffload: boolean;
  // Cloud nodes.
  /** cloud_interfaces: the host interfaces cloud ports, nio_tap and nio_ethernet may use (names or `prefix*`); unset: every one but the loopback and emuctl's own, which are refused whatever this says. */
  cloudInterfaces?: string[];
  // GNS3 appliances and symbols (issue 32).
  /** appliances_dir: a directory of GNS3 appliance files (.gns3a) that GET /v2/appliances lists (none by default). */
  appliancesDir?: string;
  /** symbols_dir: a directory of the user's symbol files, served beside emuctl's own (theme "Custom symbols"; none by default). */
  symbolsDir?: string;
  /** Every this many seconds, log a line on the daemon's memory (RSS, V8 heaps of the main thread and the dataplane worker); 0: never. */
  memoryLogSeconds: number;
  // Request guard (browsers, other sites, DNS rebinding).
  /** Origins besides the daemon's own whose pages may call the API (and get CORS headers). */
  corsOrigins: string[];
  /** Host names besides the daemon's own addresses that requests may name in `Host`. */
  allowedHosts: string[];
  // Exposing the daemon: TLS, and the auth requirement beyond loopback.
  /** PEM certificate (chain) file: with tlsKey, the daemon serves HTTPS and WSS only. */
  tlsCert?: string;
  /** PEM private key file of tlsCert. */
  tlsKey?: string;
  /** Listen beyond loopback without auth all the same (logged as a warning). */
  insecureNoAuth: boolean;
  /** GNS3 GUIs: the real path of a GNS3 Web UI release directory served at /static/web-ui/ (none by default). */
  webUi?: string;
  // Imported archives (issue 17): project imports, duplicates and snapshot restores.
  /** Largest archive upload in bytes; unset: 4 GiB, or less when the temporary directory cannot spare that much. */
  maxImportBytes?: number;
  /** Largest total of an archive's extracted files in bytes; unset: what the projects file system can spare at import time. */
  maxImportExpandedBytes?: number;
  /** Most entries an archive may hold. */
  maxImportEntries: number;
  /** max_import_ratio: past 128 MiB extracted, an archive and each of its entries expand to at most this many times their compressed size. */
  maxImportRatio: number;
  paths: EmuctlPaths;
  /** Where each setting came from, for every key of the settings. */
  sources: Record<string, SettingSource>;
}

/** How one kind of value is read from the environment (text) and from the config file (JSON). */
interface ValueKind<T> {
  fromEnv(text: string, where: string): T;
  fromFile(value: unknown, where: string): T;
}

const TEXT: ValueKind<string> = {
  fromEnv: (text) => text,
  fromFile: (value, where) => {
    if (typeof value !== 'string') throw new InvalidError(`${where} must be a string`);
    return value;
  },
};

const INTEGER: ValueKind<number> = {
  fromEnv: (text, where) => {
    if (!/^\d+$/.test(text)) throw new InvalidError(`${where} must be a number, not '${text}'`);
    return Number(text);
  },
  fromFile: (value, where) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new InvalidError(`${where} must be an integer`);
    return value;
  },
};

const BOOLEAN: ValueKind<boolean> = {
  fromEnv: (text) => text !== '0' && text.toLowerCase() !== 'false',
  fromFile: (value, where) => {
    if (typeof value !== 'boolean') throw new InvalidError(`${where} must be true or false`);
    return value;
  },
};

const RANGE: ValueKind<PortRange> = {
  fromEnv: (text, where) => {
    const m = /^(\d+)-(\d+)$/.exec(text);
    if (!m) throw new InvalidError(`${where} '${text}' must look like 10000-20000`);
    return checkRange([Number(m[1]), Number(m[2])], where);
  },
  fromFile: (value, where) => {
    if (!Array.isArray(value) || value.length !== 2 || !value.every((n) => Number.isInteger(n))) throw new InvalidError(`${where} must be [first, last]`);
    return checkRange([value[0], value[1]], where);
  },
};

// Request guard (browsers, other sites, DNS rebinding): lists are comma-separated in the environment, arrays in the file.
const LIST: ValueKind<string[]> = {
  fromEnv: (text) => text.split(',').map((item) => item.trim()).filter(Boolean),
  fromFile: (value, where) => {
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new InvalidError(`${where} must be an array of strings`);
    return value;
  },
};

function checkCorsOrigins(origins: string[], where: string): void {
  for (const origin of origins) {
    if (!parseOrigin(origin)) throw new InvalidError(`${where}: '${origin}' is not an origin: write scheme://host[:port], e.g. http://127.0.0.1:8080 (never * or null)`);
  }
}

/** A docker_registries entry: a registry as an image names it, `host` or `host:port` (lower case, no scheme, no path). */
function checkRegistries(registries: string[], where: string): void {
  for (const r of registries) {
    if (!/^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::[0-9]{1,5})?$/.test(r)) throw new InvalidError(`${where}: '${r}' is not a registry as an image names it (host or host:port, lower case)`);
  }
}

function checkAllowedHosts(hosts: string[], where: string): void {
  for (const host of hosts) {
    if (allowedHostName(host) === undefined) throw new InvalidError(`${where}: '${host}' is not a host name or address (no port, no *)`);
  }
}

function checkNatSubnet(value: string, where: string): void {
  parseSubnet(value, where);
}

/** One setting: its environment variable, config file key, kind and default. */
interface SettingSpec<T> {
  env: string;
  file: string;
  kind: ValueKind<T>;
  fallback: T;
  check?: (value: T, where: string) => void;
}

const positive = (value: number, where: string) => {
  if (value < 1) throw new InvalidError(`${where} must be at least 1`);
};

/** The GNS3 release emuctl is tested against; GNS3 clients and controllers refuse another major.minor. */
export const DEFAULT_GNS3_VERSION = '2.2.42';

/** Every setting but the ones with special handling (auth password, projects dir default, port). */
const SPECS = {
  host: { env: 'EMUCTL_HOST', file: 'host', kind: TEXT, fallback: '127.0.0.1' },
  gns3Version: { env: 'EMUCTL_GNS3_VERSION', file: 'gns3_version', kind: TEXT, fallback: DEFAULT_GNS3_VERSION, check: checkGns3Version },
  dataplane: { env: 'EMUCTL_DATAPLANE', file: 'dataplane', kind: TEXT as ValueKind<DataplaneEngine>, fallback: 'auto' as DataplaneEngine, check: checkDataplane },
  role: { env: 'EMUCTL_ROLE', file: 'role', kind: TEXT as ValueKind<DaemonRole>, fallback: 'both' as DaemonRole, check: checkRole },
  debug: { env: 'EMUCTL_DEBUG', file: 'debug', kind: BOOLEAN, fallback: false },
  maxBodyBytes: { env: 'EMUCTL_MAX_BODY_BYTES', file: 'max_body_bytes', kind: INTEGER, fallback: 1024 * 1024, check: positive },
  jsonMaxDepth: { env: 'EMUCTL_JSON_MAX_DEPTH', file: 'json_max_depth', kind: INTEGER, fallback: 64, check: positive },
  jsonMaxItems: { env: 'EMUCTL_JSON_MAX_ITEMS', file: 'json_max_items', kind: INTEGER, fallback: 10_000, check: positive },
  udpPortRange: { env: 'EMUCTL_UDP_PORT_RANGE', file: 'udp_port_range', kind: RANGE, fallback: [10000, 20000] as PortRange },
  consolePortRange: { env: 'EMUCTL_CONSOLE_PORT_RANGE', file: 'console_port_range', kind: RANGE, fallback: [5000, 10000] as PortRange },
  forwardTimeoutMs: { env: 'EMUCTL_FORWARD_TIMEOUT_MS', file: 'forward_timeout_ms', kind: INTEGER, fallback: 30_000, check: positive },
  computeTimeoutMs: { env: 'EMUCTL_COMPUTE_TIMEOUT_MS', file: 'compute_timeout_ms', kind: INTEGER, fallback: 30_000, check: positive },
  headersTimeoutMs: { env: 'EMUCTL_HEADERS_TIMEOUT_MS', file: 'headers_timeout_ms', kind: INTEGER, fallback: 10_000, check: positive },
  requestTimeoutMs: { env: 'EMUCTL_REQUEST_TIMEOUT_MS', file: 'request_timeout_ms', kind: INTEGER, fallback: 30_000, check: positive },
  keepAliveTimeoutMs: { env: 'EMUCTL_KEEP_ALIVE_TIMEOUT_MS', file: 'keep_alive_timeout_ms', kind: INTEGER, fallback: 65_000, check: positive },
  maxConnections: { env: 'EMUCTL_MAX_CONNECTIONS', file: 'max_connections', kind: INTEGER, fallback: 1000, check: positive },
  maxConnectionsPerAddress: { env: 'EMUCTL_MAX_CONNECTIONS_PER_ADDRESS', file: 'max_connections_per_address', kind: INTEGER, fallback: 256, check: positive },
  maxStreams: { env: 'EMUCTL_MAX_STREAMS', file: 'max_streams', kind: INTEGER, fallback: 100, check: positive },
  authMaxFailures: { env: 'EMUCTL_AUTH_MAX_FAILURES', file: 'auth_max_failures', kind: INTEGER, fallback: 10, check: positive },
  authBackoffMs: { env: 'EMUCTL_AUTH_BACKOFF_MS', file: 'auth_backoff_ms', kind: INTEGER, fallback: 1000, check: positive },
  maxImageBytes: { env: 'EMUCTL_MAX_IMAGE_BYTES', file: 'max_image_bytes', kind: INTEGER, fallback: 64 * 1024 ** 3, check: positive },
  memoryLogSeconds: { env: 'EMUCTL_MEMORY_LOG_SECONDS', file: 'memory_log_seconds', kind: INTEGER, fallback: 0 },
  // Request guard (browsers, other sites, DNS rebinding).
  corsOrigins: { env: 'EMUCTL_CORS_ORIGINS', file: 'cors_origins', kind: LIST, fallback: [] as string[], check: checkCorsOrigins },
  allowedHosts: { env: 'EMUCTL_ALLOWED_HOSTS', file: 'allowed_hosts', kind: LIST, fallback: [] as string[], check: checkAllowedHosts },
  qemuAccel: { env: 'EMUCTL_QEMU_ACCEL', file: 'qemu_accel', kind: TEXT as ValueKind<QemuAccelSetting>, fallback: 'auto' as QemuAccelSetting, check: checkQemuAccel },
  // Exposing the daemon: TLS, and the auth requirement beyond loopback.
  tlsCert: { env: 'EMUCTL_TLS_CERT', file: 'tls_cert', kind: TEXT as ValueKind<string | undefined>, fallback: undefined as string | undefined },
  tlsKey: { env: 'EMUCTL_TLS_KEY', file: 'tls_key', kind: TEXT as ValueKind<string | undefined>, fallback: undefined as string | undefined },
  insecureNoAuth: { env: 'EMUCTL_INSECURE_NO_AUTH', file: 'insecure_no_auth', kind: BOOLEAN, fallback: false },
  // What reaches a command line: off, a QEMU node's options are checked against the allow-list (qemu-options.ts).
  qemuUnsafeOptions: { env: 'EMUCTL_QEMU_UNSAFE_OPTIONS', file: 'qemu_unsafe_options', kind: BOOLEAN, fallback: false },
  // Docker nodes: off, a node gets Docker's default capabilities plus safe network ones (kinds/docker/containment.ts).
  dockerUnsafeCaps: { env: 'EMUCTL_DOCKER_UNSAFE_CAPS', file: 'docker_unsafe_caps', kind: BOOLEAN, fallback: false },
  dockerRegistries: { env: 'EMUCTL_DOCKER_REGISTRIES', file: 'docker_registries', kind: LIST, fallback: [] as string[], check: checkRegistries },
  // Imported archives (issue 17): the byte limits have no fixed default, they follow the free disk space at import time.
  maxImportBytes: { env: 'EMUCTL_MAX_IMPORT_BYTES', file: 'max_import_bytes', kind: INTEGER as ValueKind<number | undefined>, fallback: undefined, check: (v: number | undefined, where: string) => v === undefined || positive(v, where) },
  maxImportExpandedBytes: { env: 'EMUCTL_MAX_IMPORT_EXPANDED_BYTES', file: 'max_import_expanded_bytes', kind: INTEGER as ValueKind<number | undefined>, fallback: undefined, check: (v: number | undefined, where: string) => v === undefined || positive(v, where) },
  maxImportEntries: { env: 'EMUCTL_MAX_IMPORT_ENTRIES', file: 'max_import_entries', kind: INTEGER, fallback: 10_000, check: positive },
  // Zip bombs: real disk images deflate 2.5 to 4.5 to 1 (README, Security); deflate itself stops near 1030 to 1.
  maxImportRatio: { env: 'EMUCTL_MAX_IMPORT_RATIO', file: 'max_import_ratio', kind: INTEGER, fallback: 100, check: positive },
  // VPCS confinement: on unless this is set (native/vpcs-confine.c).
  vpcsUnconfined: { env: 'EMUCTL_VPCS_UNCONFINED', file: 'vpcs_unconfined', kind: BOOLEAN, fallback: false },
  // NAT node: like libvirt's virbr0 by default.
  natSubnet: { env: 'EMUCTL_NAT_SUBNET', file: 'nat_subnet', kind: TEXT, fallback: '192.168.122.0/24', check: checkNatSubnet },
  // Management networks: a lab's /24 (/64) out of these, chosen free of host routes and other labs.
  mgmtRange: { env: 'EMUCTL_MGMT_RANGE', file: 'mgmt_range', kind: TEXT, fallback: '10.242.0.0/16', check: (v: string, where: string) => void managementSubnet(v, 4, where) },
  mgmtNat: { env: 'EMUCTL_MGMT_NAT', file: 'mgmt_nat', kind: BOOLEAN, fallback: true },
  mgmtRangeIpv6: { env: 'EMUCTL_MGMT_RANGE_IPV6', file: 'mgmt_range_ipv6', kind: TEXT, fallback: 'fd65:6d75:6374::/48', check: (v: string, where: string) => void managementSubnet(v, 6, where) },
  // TAP offloads: on unless turned off (a host whose TAP driver refuses TUNSETOFFLOAD, or a comparison).
  tapOffload: { env: 'EMUCTL_TAP_OFFLOAD', file: 'tap_offload', kind: BOOLEAN, fallback: true },
  // Cloud nodes: unset means every host interface but the loopback and emuctl's own (host-interface-policy.ts).
  cloudInterfaces: { env: 'EMUCTL_CLOUD_INTERFACES', file: 'cloud_interfaces', kind: LIST as ValueKind<string[] | undefined>, fallback: undefined as string[] | undefined, check: checkCloudInterfaces },
  // GNS3 appliances and symbols (issue 32): directories the controller reads, none by default.
  appliancesDir: { env: 'EMUCTL_APPLIANCES_DIR', file: 'appliances_dir', kind: TEXT as ValueKind<string | undefined>, fallback: undefined as string | undefined },
  symbolsDir: { env: 'EMUCTL_SYMBOLS_DIR', file: 'symbols_dir', kind: TEXT as ValueKind<string | undefined>, fallback: undefined as string | undefined },
};

/** Config file keys, for the unknown-key check. */
const FILE_KEYS = ['port', 'projects_dir', 'images_dir', 'auth_user', 'auth_password', 'log_file', 'web_ui', ...Object.values(SPECS).map((s) => s.file)];

/** Resolves the daemon settings: flags > environment (EMUCTL_*) > config file > defaults, the same way for every setting. */
export async function resolveSettings(flags: DaemonFlags, env: NodeJS.ProcessEnv = process.env): Promise<DaemonSettings> {
  const paths = emuctlPaths(env);
  const file = await readConfigFile(flags.config ?? env.EMUCTL_CONFIG, paths.daemonConfig);
  const sources: Record<string, SettingSource> = {};

  const resolve = <T>(name: string, flag: T | undefined, spec: SettingSpec<T>): T => {
    const value = pick(name, flag, spec);
    spec.check?.(value, sources[name] === 'env' ? spec.env : sources[name] === 'file' ? `config file: ${spec.file}` : name);
    return value;
  };
  const pick = <T>(name: string, flag: T | undefined, spec: SettingSpec<T>): T => {
    if (flag !== undefined) return (sources[name] = 'flag'), flag;
    const fromEnv = env[spec.env];
    if (fromEnv !== undefined && fromEnv !== '') return (sources[name] = 'env'), spec.kind.fromEnv(fromEnv, spec.env);
    if (file[spec.file] !== undefined) return (sources[name] = 'file'), spec.kind.fromFile(file[spec.file], `config file: ${spec.file}`);
    sources[name] = 'default';
    return spec.fallback;
  };

  const port = resolve('port', flags.port, { env: 'EMUCTL_PORT', file: 'port', kind: INTEGER, fallback: 3080, check: checkPort });
  const projectsDir = resolve('projectsDir', flags.projectsDir, { env: 'EMUCTL_PROJECTS_DIR', file: 'projects_dir', kind: TEXT, fallback: paths.projectsDir });
  const logFile = resolve<string | undefined>('logFile', flags.logFile, { env: 'EMUCTL_LOG_FILE', file: 'log_file', kind: TEXT, fallback: undefined });
  const authUser = resolve<string | undefined>('authUser', flags.authUser, { env: 'EMUCTL_AUTH_USER', file: 'auth_user', kind: TEXT, fallback: undefined });
  const passwordFromFlag = flags.authPasswordFile ? (await readFile(flags.authPasswordFile, 'utf8')).replace(/\r?\n$/, '') : undefined;
  const authPassword = resolve<string | undefined>('authPassword', passwordFromFlag, { env: 'EMUCTL_AUTH_PASSWORD', file: 'auth_password', kind: TEXT, fallback: undefined });
  if (authPassword !== undefined && !authUser) throw new InvalidError('an auth password is set but no auth user');
  const imagesDir = resolve('imagesDir', flags.imagesDir, { env: 'EMUCTL_IMAGES_DIR', file: 'images_dir', kind: TEXT, fallback: join(paths.home, 'images', 'QEMU') });

  // GNS3 GUIs: the Web UI directory, checked now so that a wrong one stops the start with one clear line.
  const webUiDir = resolve<string | undefined>('webUi', flags.webUi, { env: 'EMUCTL_WEB_UI', file: 'web_ui', kind: TEXT, fallback: undefined });
  const webUi = webUiDir === undefined ? undefined : await checkWebUiDir(webUiDir, sources.webUi === 'env' ? 'EMUCTL_WEB_UI' : sources.webUi === 'file' ? 'config file: web_ui' : '--web-ui');

  const settings = {} as Record<keyof typeof SPECS, unknown>;
  for (const [name, spec] of Object.entries(SPECS) as [keyof typeof SPECS, SettingSpec<unknown>][]) {
    const flag = name === 'debug' ? flags.debug || undefined : flags[name];
    settings[name] = resolve(name, flag, spec);
  }
  if (!settings.tlsCert !== !settings.tlsKey) throw new InvalidError(`TLS needs both a certificate and a key: give ${settings.tlsCert ? '--tls-key (EMUCTL_TLS_KEY, tls_key)' : '--tls-cert (EMUCTL_TLS_CERT, tls_cert)'} too`);

  return {
    ...(settings as Pick<DaemonSettings, keyof typeof SPECS>),
    port,
    projectsDir,
    imagesDir,
    logFile,
    webUi,
    auth: authUser ? { user: authUser, password: authPassword ?? '' } : undefined,
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

/** The real path of a Web UI directory: it must exist and hold the UI's index.html. */
async function checkWebUiDir(dir: string, where: string): Promise<string> {
  const real = await realpath(dir).catch(() => undefined);
  if (!real || !(await stat(join(real, 'index.html')).then((s) => s.isFile(), () => false))) {
    throw new InvalidError(`${where} ${dir} is not a GNS3 Web UI directory (it must hold index.html; see "Use with GNS3" in the README)`);
  }
  return real;
}

function checkRange([first, last]: PortRange, what: string): PortRange {
  if (first < 1 || last > 65535 || first > last) throw new InvalidError(`${what} ${first}-${last} is not a valid port range`);
  return [first, last];
}

function checkPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidError(`${what} ${port} is out of range 1-65535 (0: any free port)`);
}

function checkGns3Version(version: string, where: string): void {
  if (!/^2\.2\.\d+$/.test(version)) throw new InvalidError(`${where} must look like 2.2.N (GNS3 2.2 clients refuse another major.minor), not '${version}'`);
}

function checkDataplane(engine: string, where: string): void {
  if (!['auto', 'native', 'js'].includes(engine)) throw new InvalidError(`${where} must be auto, native or js, not '${engine}'`);
}

function checkQemuAccel(accel: string, where: string): void {
  if (!QEMU_ACCEL_SETTINGS.includes(accel as QemuAccelSetting)) throw new InvalidError(`${where} must be auto, kvm or tcg, not '${accel}'`);
}

function checkRole(role: string): void {
  if (!['both', 'controller', 'compute'].includes(role)) throw new InvalidError(`role must be both, controller or compute, not '${role}'`);
}
