// IPv4 forwarding, which the NAT node and a management network with a route out both need: turned
// on (journalled, with the value it had) by the first of them, put back only when none needs it.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { iptables, type HostChangeJournal } from './host-changes.js';
import { NAT_BRIDGE_PREFIX } from './host-interface-policy.js';

const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward';
/** The nat-table chain of a management network with a route out: this + 8 hex digits of the project. */
export const MGMT_NAT_CHAIN_PREFIX = 'EMUCTL-MGMT-NAT-';

/** IPv4 forwarding on, journalled when it was off. */
export async function enableIpForwarding(journal: HostChangeJournal): Promise<void> {
  const previous = (await readFile(IP_FORWARD, 'utf8')).trim();
  if (previous === '1') return;
  await journal.record({ kind: 'sysctl', path: IP_FORWARD, previous });
  await writeFile(IP_FORWARD, '1');
}

/**
 * Whether an emuctl part on this host still needs IPv4 forwarding: a NAT node's bridge, or a
 * management network with a route out (its nat chain). A journal records the sysctl before its
 * bridge and chains, so they are undone before this is asked.
 */
export async function ipForwardingStillNeeded(): Promise<boolean> {
  if ((await readdir('/sys/class/net')).some((n) => n.startsWith(NAT_BRIDGE_PREFIX))) return true;
  const listed = await iptables('nat', '-S').then((r) => String((r as { stdout: string }).stdout), () => '');
  return listed.split('\n').some((l) => l.startsWith(`-N ${MGMT_NAT_CHAIN_PREFIX}`));
}
