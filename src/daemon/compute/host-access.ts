import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { findExecutable } from '../../util/which.js';

const CAP_NET_ADMIN = 12n;
const CAP_NET_RAW = 13n;

/** Whether this process holds a capability in its effective set (root without it does not). */
function hasCapability(bit: bigint): boolean {
  const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return m !== null && ((BigInt(`0x${m[1]}`) >> bit) & 1n) === 1n;
}

/** The PATH the host tools are looked up on: the daemon's, then the sbin directories a non-root PATH often lacks. */
export function toolPath(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: [env.PATH, '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean).join(':') };
}

/** A host tool as a path, or undefined. */
export function hostTool(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(name, toolPath(env));
}

/**
 * What this daemon lacks to change the host's network for `what` (a node kind), as one line, or
 * undefined when it has it all. `tools` maps each binary to the Debian package that has it.
 */
export function missingHostAccess(what: string, env: NodeJS.ProcessEnv, tools: Record<string, string>, opts: { raw?: boolean } = {}): string | undefined {
  const caps = [hasCapability(CAP_NET_ADMIN) ? undefined : 'CAP_NET_ADMIN', opts.raw && !hasCapability(CAP_NET_RAW) ? 'CAP_NET_RAW' : undefined].filter(Boolean);
  if (caps.length) return `${what} needs ${caps.join(' and ')}: run the daemon as root or give it the capability (e.g. setcap cap_net_admin,cap_net_raw+ep on node)`;
  const missing = Object.entries(tools).filter(([binary]) => !hostTool(binary, env)).map(([binary, pkg]) => `${binary} (Debian package ${pkg})`);
  if (missing.length) return `${what} needs ${missing.join(', ')}, not found on PATH`;
  return undefined;
}

const execHost = promisify(execFile);

/** Runs a host tool (ip, iptables) found on `toolPath`, so a daemon whose PATH lacks the sbin directories still finds it. */
export function runHostTool(name: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string }> {
  return execHost(hostTool(name, env) ?? name, args);
}
