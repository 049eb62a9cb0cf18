/**
 * Which host interfaces a client may name (a cloud node's ports, nio_tap and nio_ethernet NIOs):
 * never the loopback, never one emuctl makes itself, and, when the operator lists some in
 * `cloud_interfaces`, only those. A cloud port on `lo` sniffs the daemon's own UDP tunnels and sends
 * them round again (issue 26); one on emuctl's NAT bridge or on a container's TAP reads and writes
 * another lab's frames.
 */
import { readFileSync } from 'node:fs';
import { ConflictError, InvalidError } from '../errors.js';

/** The NAT bridge of a daemon: this + its pid. Every name starting with `emu` is emuctl's. */
export const NAT_BRIDGE_PREFIX = 'emunat';
/** A NAT node's TAP: this + 8 hex digits of the node id + the port. */
export const NAT_TAP_PREFIX = 'ent';
/** A docker node's TAP on the host, before it moves into the container: this + 8 hex digits + `e` + the adapter. */
export const DOCKER_TAP_PREFIX = 'emd';

/** A project's management bridge: this + 8 hex digits of the project id. */
export const MGMT_BRIDGE_PREFIX = 'emum';
/** A node's management veth on the host: this + 8 hex digits of the node id (+ `p` for the end that goes into the node). */
export const MGMT_VETH_PREFIX = 'emuv';
/** A QEMU node's management TAP on the host: this + 8 hex digits of the node id. */
export const MGMT_TAP_PREFIX = 'emuq';

/** Names of the interfaces emuctl makes (and any that looks like one), with what each is. */
const OWNED: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /^emu/, what: "an emuctl interface (the prefix emu is emuctl's: NAT and management bridges, management veths and TAPs)" },
  { pattern: new RegExp(`^${NAT_TAP_PREFIX}[0-9a-f]{8}\\d+$`), what: "a NAT node's TAP" },
  { pattern: new RegExp(`^${DOCKER_TAP_PREFIX}[0-9a-f]{8}e\\d+$`), what: "a docker node's TAP" },
];
/** ARPHRD_LOOPBACK, /sys/class/net/<name>/type of a loopback device whatever its name. */
const ARPHRD_LOOPBACK = '772';

/** Why no cloud may ever use `name` (the loopback, an interface emuctl owns), or undefined. */
export function alwaysRefused(name: string): string | undefined {
  if (name === 'lo' || isLoopback(name)) return `${name} is the host's loopback: a cloud port there would capture the daemon's own UDP tunnels and send them round again`;
  const owned = OWNED.find((o) => o.pattern.test(name));
  return owned ? `${name} is ${owned.what}: a lab may not bridge it` : undefined;
}

function isLoopback(name: string): boolean {
  try {
    return readFileSync(`/sys/class/net/${name}/type`, 'utf8').trim() === ARPHRD_LOOPBACK;
  } catch {
    return false;
  }
}

/** One `cloud_interfaces` entry: an interface name, or a prefix ending in `*`. */
const ENTRY = /^[A-Za-z0-9_.-]{1,15}\*?$/;

/** Checks the `cloud_interfaces` setting: names or `prefix*`, none of them refused whatever the setting. */
export function checkCloudInterfaces(entries: readonly string[] | undefined, where: string): void {
  for (const entry of entries ?? []) {
    if (!ENTRY.test(entry)) throw new InvalidError(`${where}: '${entry}' is not an interface name or a prefix ending in * (1-15 characters of A-Z a-z 0-9 _ . -)`);
    const refused = alwaysRefused(entry.replace(/\*$/, ''));
    if (refused) throw new InvalidError(`${where}: '${entry}' cannot be allowed: ${refused}`);
  }
}

/** The host interfaces clients may name on this compute (see the file comment). */
export class HostInterfacePolicy {
  /** `allowed`: the operator's `cloud_interfaces` (names or `prefix*`); undefined: every interface but the refused ones. */
  constructor(private readonly allowed?: readonly string[]) {}

  /** Why `name` may not be used, or undefined when it may. */
  refusal(name: string): string | undefined {
    const always = alwaysRefused(name);
    if (always || !this.allowed) return always;
    const listed = this.allowed.some((e) => (e.endsWith('*') ? name.startsWith(e.slice(0, -1)) : name === e));
    return listed ? undefined : `${name} is not among the host interfaces a cloud may use (the cloud_interfaces setting: ${this.allowed.join(', ') || 'none'})`;
  }

  /** Whether `name` may be used. */
  allows(name: string): boolean {
    return this.refusal(name) === undefined;
  }

  /** A client's request names `name` (`field` says where): InvalidError (400) when it may not be used. */
  check(name: string, field: string): string {
    const why = this.refusal(name);
    if (why) throw new InvalidError(`${field}: interface ${why}`);
    return name;
  }

  /** A node restored from a project, an archive or a lab file is about to open `name`: ConflictError (409) when it may not. */
  checkInUse(name: string, what: string): string {
    const why = this.refusal(name);
    if (why) throw new ConflictError(`${what} will not open its interface: ${why}`);
    return name;
  }
}
