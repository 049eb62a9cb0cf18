import { lookup } from 'node:dns/promises';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConflictError } from '../../errors.js';
import { isLoopbackHost } from '../../exposure.js';

/** Where build-native.mjs puts the shim (dist/src/daemon/kinds/vpcs → the repository root). */
export const VPCS_CONFINE_SHIM_PATH = fileURLToPath(new URL('../../../../../build/Release/vpcs-confine.so', import.meta.url));

/** How a VPCS is confined (native/vpcs-confine.c): the preloaded shim and the address its console binds. */
export interface VpcsConfinement {
  /** Path of vpcs-confine.so; default VPCS_CONFINE_SHIM_PATH. */
  shim?: string;
  /** The daemon's bind host: the console listens there instead of 0.0.0.0. Default 127.0.0.1. */
  consoleHost?: string;
  /** A unix socket (relative to the node directory) VPCS serves its console on instead of a TCP port. */
  consoleSocket?: string;
}

/**
 * The environment that makes VPCS load the shim: no host program, no file written outside its
 * directory, its console bound to the daemon's address and its UDP sockets to loopback when its
 * tunnel's far end is on loopback. A missing shim is a 409: VPCS never runs unconfined by accident.
 */
export async function confinementEnvironment(c: VpcsConfinement, remoteHost: string): Promise<Record<string, string>> {
  const shim = c.shim ?? VPCS_CONFINE_SHIM_PATH;
  if (!existsSync(shim)) {
    throw new ConflictError(`vpcs confinement shim not built (${shim} is missing): run bash scripts/setup.sh, or set vpcs_unconfined on a trusted single-user install`);
  }
  // ld.so splits LD_PRELOAD on spaces and colons.
  if (/[\s:]/.test(shim)) throw new ConflictError(`vpcs confinement shim path '${shim}' holds a space or a colon, which LD_PRELOAD cannot carry: move emuctl to another directory`);
  const env: Record<string, string> = { LD_PRELOAD: shim, VPCS_CONFINE_TCP_HOST: await consoleBindAddress(c.consoleHost ?? '127.0.0.1') };
  if (isLoopbackHost(remoteHost)) env.VPCS_CONFINE_UDP_HOST = '127.0.0.1';
  if (c.consoleSocket) env.VPCS_CONFINE_CONSOLE_SOCKET = c.consoleSocket;
  return env;
}

/** True when the process has the shim mapped (ld.so ignores a preload it cannot load, with only a warning). */
export function isConfined(pid: number, shim = VPCS_CONFINE_SHIM_PATH): boolean {
  try {
    const real = realpathSync(shim);
    return readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').some((line) => line.endsWith(` ${real}`));
  } catch {
    return false;
  }
}

/**
 * The IPv4 address VPCS's console (an IPv4-only listener) binds for a daemon bound to `host`: the
 * address itself, 0.0.0.0 for a wildcard, 127.0.0.1 for IPv6 loopback, a host name's first IPv4
 * address, and 127.0.0.1 when there is none (an IPv6-only daemon never reached the console anyway).
 */
export async function consoleBindAddress(host: string): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1];
  if (isIPv4(bare)) return bare;
  if (isIPv6(bare)) return /^(::|0:0:0:0:0:0:0:0)$/.test(bare) ? '0.0.0.0' : '127.0.0.1';
  try {
    return (await lookup(bare, { family: 4 })).address;
  } catch {
    return '127.0.0.1';
  }
}
