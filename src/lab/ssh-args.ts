import { isIP } from 'node:net';
import type { LabSshFiles } from './ssh-keys.js';
import { LAB_SSH_USER } from './ssh-keys.js';

/**
 * ssh's options for a lab node: the lab's key only (no agent keys tried first: a server allows
 * few attempts), and host-key checking that never prompts: a host key unknown to the lab's own
 * known_hosts is recorded at first contact (accept-new), one that changed is refused.
 */
export function labSshOptions(files: Pick<LabSshFiles, 'privateKey' | 'knownHosts'>): string[] {
  return [
    '-i', files.privateKey,
    '-o', 'IdentitiesOnly=yes',
    '-o', 'IdentityAgent=none',
    '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=accept-new',
    '-o', `UserKnownHostsFile=${files.knownHosts}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    // Plain names in the lab's known_hosts (Debian's ssh_config hashes them), so that `lab up` can forget a recreated node's key.
    '-o', 'HashKnownHosts=no',
    // "Permanently added … to the list of known hosts" is not the user's output.
    '-o', 'LogLevel=ERROR',
  ];
}

/** The whole argument list of `ssh` to `address` (IPv4 or IPv6, no prefix), with the remote command's words after `--` when there are any. */
export function labSshArgs(files: Pick<LabSshFiles, 'privateKey' | 'knownHosts'>, address: string, command: readonly string[] = []): string[] {
  return [...labSshOptions(files), '-l', LAB_SSH_USER, address, ...(command.length ? ['--', ...command] : [])];
}

/**
 * An address with its prefix length (`198.19.130.5/24`) as the bare address; null/undefined/'' give
 * undefined, and so does anything that is not an IP address: the value comes from the server and
 * ends up as ssh's host argument (`-oProxyCommand=…` would be an option) and in ssh-config lines.
 */
export function bareAddress(cidr: unknown): string | undefined {
  const m = typeof cidr === 'string' ? /^([^/]+)(?:\/\d{1,3})?$/.exec(cidr) : null;
  return m && isIP(m[1]!) ? m[1] : undefined;
}
