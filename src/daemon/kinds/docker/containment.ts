import { BlockList, isIPv4 } from 'node:net';
import type Docker from 'dockerode';
import { ConflictError, InvalidError } from '../../errors.js';
import type { HostPolicy } from '../../host-policy.js';

/**
 * What a docker node may do to its host: the one check of the docker kind's untrusted properties
 * (API, templates, archives, snapshots, lab files, the controller's check for remote computes) and
 * the hardening every container gets, read back from Docker before it starts.
 */

/** Linux capabilities, in kernel order (bit N of /proc/PID/status CapBnd is the Nth). */
export const ALL_CAPABILITIES = [
  'CHOWN', 'DAC_OVERRIDE', 'DAC_READ_SEARCH', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'LINUX_IMMUTABLE',
  'NET_BIND_SERVICE', 'NET_BROADCAST', 'NET_ADMIN', 'NET_RAW', 'IPC_LOCK', 'IPC_OWNER', 'SYS_MODULE', 'SYS_RAWIO', 'SYS_CHROOT', 'SYS_PTRACE',
  'SYS_PACCT', 'SYS_ADMIN', 'SYS_BOOT', 'SYS_NICE', 'SYS_RESOURCE', 'SYS_TIME', 'SYS_TTY_CONFIG', 'MKNOD', 'LEASE', 'AUDIT_WRITE',
  'AUDIT_CONTROL', 'SETFCAP', 'MAC_OVERRIDE', 'MAC_ADMIN', 'SYSLOG', 'WAKE_ALARM', 'BLOCK_SUSPEND', 'AUDIT_READ', 'PERFMON', 'BPF',
  'CHECKPOINT_RESTORE',
] as const;

/** Docker's default set (every container has them): adding one changes nothing. */
const DOCKER_DEFAULT_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FSETID', 'FOWNER', 'MKNOD', 'NET_RAW', 'SETGID', 'SETUID', 'SETFCAP', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'KILL', 'AUDIT_WRITE'];

/**
 * Capabilities a node may have without the operator's say: Docker's defaults, and the network ones
 * that act only on the container's own network namespace. Every other one reaches the host kernel,
 * its devices, its clock or other processes (SYS_ADMIN mounts cgroups and sets release agents).
 */
export const SAFE_CAPABILITIES: readonly string[] = [...DOCKER_DEFAULT_CAPABILITIES, 'NET_ADMIN', 'NET_BROADCAST'];

/** What a new node gets: what FRR's zebra, ospfd, bgpd and isisd need (measured: README, Security › Docker nodes). */
export const DEFAULT_CAPABILITIES = ['NET_ADMIN', 'NET_RAW'];

/** What emuctl gave every docker node before SYS_ADMIN was dropped: the cap_add of every project saved then. */
const FORMER_DEFAULT_CAPABILITIES = ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN'];

/**
 * A restored node's cap_add: exactly the former default becomes today's (it asked for nothing, it
 * got SYS_ADMIN), unless the operator allows every capability. Anything else is kept as it is.
 */
export function restoredCapabilities(caps: readonly string[], policy: DockerPolicy): string[] {
  const former = caps.length === FORMER_DEFAULT_CAPABILITIES.length && FORMER_DEFAULT_CAPABILITIES.every((c) => caps.includes(c));
  return former && !policy.dockerUnsafeCaps ? [...DEFAULT_CAPABILITIES] : [...caps];
}

/** The operator's settings this check reads (docker_unsafe_caps, docker_registries). */
export type DockerPolicy = Pick<HostPolicy, 'dockerUnsafeCaps' | 'dockerRegistries'>;

/** The node properties this check reads. */
export interface ContainedSettings {
  image: string;
  cap_add: readonly string[];
  privileged: boolean;
}

/** A refused property: its name and why. */
export interface Violation {
  field: 'privileged' | 'cap_add' | 'image';
  message: string;
}

const SETTING_HINT = 'an operator may allow it on a trusted single-user install with the daemon setting';

/** The first property the policy refuses, or undefined when the node is within it. */
export function violationOf(s: ContainedSettings, policy: DockerPolicy): Violation | undefined {
  if (!policy.dockerUnsafeCaps) {
    if (s.privileged) return { field: 'privileged', message: `privileged: a privileged container is root on the host (every device, every capability, no seccomp); ${SETTING_HINT} docker_unsafe_caps` };
    const unsafe = s.cap_add.filter((c) => !SAFE_CAPABILITIES.includes(c));
    if (unsafe.length) return { field: 'cap_add', message: `cap_add: ${unsafe.join(', ')} reach${unsafe.length === 1 ? 'es' : ''} the host kernel or other processes (allowed: ${SAFE_CAPABILITIES.join(', ')}); ${SETTING_HINT} docker_unsafe_caps` };
  }
  const registry = refusedRegistry(s.image, policy.dockerRegistries);
  if (registry) return { field: 'image', message: `image: '${s.image}' names the registry ${registry}, a local address or a host with a port that Docker would pull from for the caller; an operator may list it in the daemon setting docker_registries` };
  return undefined;
}

/** A client's node (API, template, lab file, remote compute): a refused property is a 400 naming it. */
export function checkContainment(s: ContainedSettings, policy: DockerPolicy): void {
  const v = violationOf(s, policy);
  if (v) throw new InvalidError(v.message);
}

/** A node restored from a project or an archive: it is kept, but does not start (409 naming the property). */
export function checkContainmentAtStart(name: string, s: ContainedSettings, policy: DockerPolicy): void {
  const v = violationOf(s, policy);
  if (v) throw new ConflictError(`docker node ${name} cannot start: ${v.message}`);
}

/** The registry part of an image reference (Docker's rule: a first component with a dot or a port, or localhost), lower-cased. */
export function registryOf(image: string): string | undefined {
  const slash = image.indexOf('/');
  if (slash < 0) return undefined;
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first.toLowerCase() : undefined;
}

/**
 * The registry of `image` when Docker would reach it at an address the caller chose: localhost, an
 * IP literal in any form inet_aton takes (`127.1`, `0x7f.1`), or any host with a port. Names of
 * public registries without a port (docker.io, ghcr.io, quay.io) pass.
 */
export function refusedRegistry(image: string, allowed: readonly string[]): string | undefined {
  const registry = registryOf(image);
  if (!registry || allowed.some((a) => a.toLowerCase() === registry)) return undefined;
  const host = registry.replace(/:[0-9]+$/, '');
  const local = host === 'localhost' || host.endsWith('.localhost') || host.split('.').every((label) => /^(?:0x[0-9a-f]*|[0-9]+)$/.test(label));
  return local || host !== registry ? registry : undefined;
}

/** Addresses a registry may not resolve to: this host, private networks, link-local, the benchmark range, multicast, reserved. */
const LOCAL_NETWORKS = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) LOCAL_NETWORKS.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) LOCAL_NETWORKS.addSubnet(net, prefix, 'ipv6');

/** Whether an address is on this host or a private network (an IPv4-mapped IPv6 address by its IPv4 part). */
export function isLocalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped || isIPv4(address)) return LOCAL_NETWORKS.check(mapped ?? address, 'ipv4');
  return LOCAL_NETWORKS.check(address, 'ipv6');
}

/** Every address of a host name (dns.lookup with all: true, as dockerd's resolver sees /etc/hosts and DNS). */
export type LookupAll = (host: string) => Promise<{ address: string }[]>;

/**
 * Before Docker pulls `image`: a registry name that resolves to this host or a private network
 * (`127.0.0.1.nip.io`, a name in /etc/hosts) would make Docker connect there (and Docker speaks
 * plain HTTP to 127.0.0.0/8), so it is a 409 unless docker_registries lists it. A name that does not
 * resolve here is left to Docker, whose pull then fails the same way. A name whose answer changes
 * between this lookup and Docker's (DNS rebinding) is not caught: list registries on such networks.
 */
export async function checkRegistryAddresses(image: string, policy: DockerPolicy, lookupAll: LookupAll): Promise<void> {
  const registry = registryOf(image);
  if (!registry || policy.dockerRegistries.some((a) => a.toLowerCase() === registry)) return;
  const host = registry.replace(/:[0-9]+$/, '');
  const addresses = await lookupAll(host).catch(() => []);
  const local = addresses.find((a) => isLocalAddress(a.address));
  if (local) throw new ConflictError(`Docker image ${image} is not pulled: its registry ${registry} resolves to ${local.address}, a local or private address; an operator may list it in the daemon setting docker_registries`);
}

/**
 * The HostConfig fields that confine every container, whatever its capabilities: no new
 * privileges (setuid binaries gain nothing), Docker's default seccomp profile (never unconfined), a
 * cgroup namespace of its own, private IPC, no host namespace, no devices, no host binds.
 */
export function hardenedHostConfig(s: ContainedSettings): Docker.HostConfig {
  return {
    NetworkMode: 'none',
    CapAdd: [...s.cap_add],
    Privileged: s.privileged,
    SecurityOpt: ['no-new-privileges:true'],
    CgroupnsMode: 'private',
    IpcMode: 'private',
    PidMode: '',
    UTSMode: '',
    UsernsMode: '',
    Devices: [],
    Binds: [],
  } as Docker.HostConfig;
}

/**
 * What Docker really made of the container (its inspect), against the hardening: a field the
 * engine ignored or changed (an old engine, a daemon-wide default, an authorization plugin) is a
 * 409 naming it, and the container does not start.
 */
export function checkHardening(name: string, s: ContainedSettings, info: Docker.ContainerInspectInfo, engineSecurity: readonly string[]): void {
  const h = info.HostConfig as { CapAdd?: string[] | null; Privileged?: boolean; SecurityOpt?: string[] | null; CgroupnsMode?: string; NetworkMode?: string; PidMode?: string; UTSMode?: string; UsernsMode?: string; IpcMode?: string; Devices?: unknown[] | null; Binds?: string[] | null };
  const problems: string[] = [];
  const caps = (h.CapAdd ?? []).map((c) => c.replace(/^CAP_/, ''));
  if (h.Privileged !== s.privileged) problems.push(`Privileged is ${h.Privileged}`);
  if (caps.some((c) => !s.cap_add.includes(c))) problems.push(`CapAdd is ${caps.join(',')}`);
  const opts = h.SecurityOpt ?? [];
  if (!opts.some((o) => /^no-new-privileges(?:[:=]true)?$/.test(o))) problems.push('no-new-privileges is off');
  if (opts.some((o) => /^seccomp[:=]unconfined$/.test(o))) problems.push('seccomp is unconfined');
  if (!s.privileged && !engineSecurity.some((o) => o.includes('name=seccomp') && !o.includes('profile=unconfined'))) problems.push('the engine applies no seccomp profile');
  if (h.CgroupnsMode !== 'private') problems.push(`the cgroup namespace is ${h.CgroupnsMode || 'the host\'s'}`);
  if (h.NetworkMode !== 'none') problems.push(`NetworkMode is ${h.NetworkMode}`);
  for (const [field, value] of [['PidMode', h.PidMode], ['UTSMode', h.UTSMode], ['UsernsMode', h.UsernsMode]] as const) if (value) problems.push(`${field} is ${value}`);
  if (h.IpcMode !== 'private') problems.push(`IpcMode is ${h.IpcMode}`);
  if ((h.Devices ?? []).length) problems.push('it has host devices');
  if ((h.Binds ?? []).length) problems.push('it has host binds');
  if ((info.Mounts ?? []).some((m) => m.Type !== 'volume')) problems.push('it mounts a host path');
  if (problems.length) throw new ConflictError(`docker node ${name} does not start: Docker did not apply emuctl's hardening (${problems.join('; ')})`);
}

/** The capabilities a contained process may hold at most: Docker's defaults and its cap_add. */
export function boundingSet(s: ContainedSettings): bigint {
  let mask = 0n;
  for (const cap of [...DOCKER_DEFAULT_CAPABILITIES, ...s.cap_add]) {
    const bit = ALL_CAPABILITIES.indexOf(cap as (typeof ALL_CAPABILITIES)[number]);
    if (bit >= 0) mask |= 1n << BigInt(bit);
  }
  return mask;
}

/**
 * The running container's first process as the kernel sees it (/proc/PID/status): seccomp
 * filtering on, no_new_privs set, no capability outside the bounding set. Anything else is a 409.
 */
export function checkProcessStatus(name: string, s: ContainedSettings, status: string): void {
  const field = (key: string) => new RegExp(`^${key}:\\s*(\\S+)`, 'm').exec(status)?.[1];
  const problems: string[] = [];
  if (!s.privileged && field('Seccomp') !== '2') problems.push(`Seccomp is ${field('Seccomp')}`);
  if (field('NoNewPrivs') !== '1') problems.push(`NoNewPrivs is ${field('NoNewPrivs')}`);
  const bounding = BigInt(`0x${field('CapBnd') ?? 'f'.repeat(16)}`);
  if (!s.privileged && (bounding & ~boundingSet(s)) !== 0n) problems.push(`its capability bounding set is ${bounding.toString(16)}`);
  if (problems.length) throw new ConflictError(`docker node ${name} was stopped: its process is not confined as asked (${problems.join('; ')})`);
}
