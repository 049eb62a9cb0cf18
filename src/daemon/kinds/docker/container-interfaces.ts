import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DOCKER_TAP_PREFIX } from '../../compute/host-interface-policy.js';
import { ConflictError } from '../../errors.js';

const run = promisify(execFile);

/** Host-side name of adapter N's TAP of a node, before it moves into the container (at most 15 bytes). */
export function tapName(nodeId: string, adapter: number): string {
  return `${DOCKER_TAP_PREFIX}${nodeId.replace(/-/g, '').slice(0, 8)}e${adapter}`;
}

/**
 * Moves a TAP into the network namespace of process `pid` as `ethN` and brings it up. The dataplane
 * keeps its fd: the TAP still carries frames, and it goes with the fd or the namespace. `replace`
 * first deletes an interface of that name in the container; `mac` sets its address.
 */
export async function moveIntoContainer(tap: string, pid: number, name: string, { replace = false, mac }: { replace?: boolean; mac?: string } = {}): Promise<void> {
  const netns = `--net=/proc/${pid}/ns/net`;
  // The old interface of that name, if the kernel has not removed it with its fd.
  if (replace) await run('nsenter', [netns, 'ip', 'link', 'delete', 'dev', name]).catch(() => undefined);
  try {
    await run('ip', ['link', 'set', 'dev', tap, 'netns', String(pid), 'name', name]);
    if (mac) await run('nsenter', [netns, 'ip', 'link', 'set', 'dev', name, 'address', mac]);
    await run('nsenter', [netns, 'ip', 'link', 'set', 'dev', name, 'up']);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new ConflictError(`cannot move interface ${tap} into the container as ${name}: ${(e.stderr || e.message).trim()}`);
  }
}

/**
 * Run by /bin/sh as the container's entrypoint: waits (up to about 30 s) until eth0..eth(N-1) exist,
 * and, with a management network, until its interface is up (it is addressed before it goes up)
 * and, when that network routes out, until the default route through it is there, then runs the image's command, so a router's configuration finds its interfaces (GNS3's
 * /gns3/init.sh waits the same way).
 */
export const WAIT_FOR_INTERFACES = [
  'i=0; n=0',
  'while [ "$n" -lt "$EMUCTL_ADAPTERS" ] && [ "$i" -lt 600 ]; do',
  '  if [ -e "/sys/class/net/eth$n" ]; then n=$((n+1)); else i=$((i+1)); sleep 0.05 2>/dev/null || sleep 1; fi',
  'done',
  'if [ -n "$EMUCTL_MGMT_INTERFACE" ]; then',
  '  while [ "$(cat "/sys/class/net/$EMUCTL_MGMT_INTERFACE/operstate" 2>/dev/null)" != up ] && [ "$i" -lt 600 ]; do i=$((i+1)); sleep 0.05 2>/dev/null || sleep 1; done',
  'fi',
  'if [ -n "$EMUCTL_MGMT_ROUTE" ]; then',
  "  r=''",
  '  while [ -z "$r" ] && [ "$i" -lt 600 ]; do',
  '    while read -r f d _; do if [ "$f" = "$EMUCTL_MGMT_INTERFACE" ] && [ "$d" = 00000000 ]; then r=1; fi; done < /proc/net/route',
  '    if [ -z "$r" ]; then i=$((i+1)); sleep 0.05 2>/dev/null || sleep 1; fi',
  '  done',
  'fi',
  'exec "$@"',
].join('\n');
