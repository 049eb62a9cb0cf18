import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DOCKER_TAP_PREFIX } from '../../compute/host-interface-policy.js';
import { ConflictError } from '../../errors.js';
import { isMacAddress } from '../../../util/mac-address.js';

const run = promisify(execFile);

/** Host-side name of adapter N's TAP of a node, before it moves into the container (at most 15 bytes). */
export function tapName(nodeId: string, adapter: number): string {
  return `${DOCKER_TAP_PREFIX}${nodeId.replace(/-/g, '').slice(0, 8)}e${adapter}`;
}

/** A Linux interface name (at most 15 bytes) of the characters emuctl's own names use. */
const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;

/** A TAP of the daemon's namespace and what it becomes in the container: its name there and its MAC, if set. */
export interface ContainerInterface {
  tap: string;
  name: string;
  mac?: string;
}

/**
 * Moves TAPs into the network namespace of process `pid`, each renamed (`ethN`), its MAC set and up:
 * one `ip -batch` for all of them, one netlink request per interface. The dataplane keeps their fds:
 * a TAP still carries frames, and it goes with the fd or the namespace. `replace` first deletes the
 * interfaces of those names in the container.
 */
export async function moveIntoContainer(pid: number, interfaces: readonly ContainerInterface[], { replace = false }: { replace?: boolean } = {}): Promise<void> {
  if (!interfaces.length) return;
  // Each becomes words of an `ip -batch` line: nothing in it may split or end one.
  for (const { tap, name, mac } of interfaces) {
    for (const ifname of [tap, name]) if (!IFNAME.test(ifname)) throw new ConflictError(`cannot move ${JSON.stringify(ifname)} into the container: not an interface name`);
    if (mac !== undefined && !isMacAddress(mac)) throw new ConflictError(`cannot set the MAC address ${JSON.stringify(mac)}: not a MAC address`);
  }
  // The old interfaces of those names, where the kernel has not removed them with their fds.
  if (replace) await runBatch(['nsenter', `--net=/proc/${pid}/ns/net`, 'ip', '-force', '-batch', '-'], interfaces.map((i) => `link delete dev ${i.name}`)).catch(() => undefined);
  // The kernel moves a device first, then renames it, sets its address and brings it up: one request does all.
  const lines = interfaces.map(({ tap, name, mac }) => `link set dev ${tap} netns ${pid} name ${name}${mac ? ` address ${mac}` : ''} up`);
  try {
    await runBatch(['ip', '-batch', '-'], lines);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new ConflictError(`cannot move interfaces ${interfaces.map((i) => i.tap).join(', ')} into the container: ${(e.stderr || e.message).trim()}`);
  }
}

/** Runs `command` with `lines` on its standard input; rejects with its stderr when it fails. */
async function runBatch([command, ...args]: string[], lines: string[]): Promise<void> {
  const child = run(command!, args);
  child.child.stdin?.end(`${lines.join('\n')}\n`);
  await child;
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
