// A management bridge's firewall: isolation in iptables and ip6tables alike, and, when the lab asks
// for it, an IPv4 route out (MASQUERADE). Every chain, rule and sysctl is journalled before it is made.
import { ConflictError } from '../../errors.js';
import { iptables, xtables, xtablesName, type HostChangeJournal, type IpFamily } from '../host-changes.js';
import { enableIpForwarding, MGMT_NAT_CHAIN_PREFIX } from '../ip-forwarding.js';
import type { ManagementNetwork } from './types.js';

/** Every interface name emuctl makes starts with this (iptables' `+` wildcard). */
const EMUCTL_INTERFACES = 'emu+';

/** The filter chain that isolates a project's bridge (the same name in iptables and ip6tables). */
export function isolationChain(short: string): string {
  return `EMUCTL-MGMT-${short}`;
}

function exists(family: IpFamily, table: string, chain: string): Promise<boolean> {
  return xtables(family)(table, '-n', '-L', chain).then(() => true, () => false);
}

/**
 * Puts the bridge's firewall up. In each family the network has, a chain of the project's own,
 * jumped to first from FORWARD: frames between the bridge's own ports pass (br_netfilter sends them
 * through FORWARD too), anything else in or out of the bridge is dropped. With `nat` (IPv4 only):
 * before the drops, what the subnet sends out of a host interface that is not emuctl's (not another
 * lab's bridge) is accepted and masqueraded, and only its replies come back in.
 */
export async function isolate(journal: HostChangeJournal, o: { bridge: string; short: string; network: ManagementNetwork }): Promise<void> {
  const chain = isolationChain(o.short);
  const families: IpFamily[] = o.network.ipv6 ? [4, 6] : [4];
  const natChain = `${MGMT_NAT_CHAIN_PREFIX}${o.short}`;
  const subnet = o.network.ipv4.subnet;
  for (const family of families) {
    if (await exists(family, 'filter', chain)) throw new ConflictError(`cannot make the ${xtablesName(family)} chain ${chain}: it exists and is not this daemon's`);
  }
  if (o.network.nat && (await exists(4, 'nat', natChain))) throw new ConflictError(`cannot make the iptables chain nat/${natChain}: it exists and is not this daemon's`);
  const comment = ['-m', 'comment', '--comment', `emuctl management network ${o.short}`];
  if (o.network.nat) await enableIpForwarding(journal);
  for (const family of families) {
    const tables = xtables(family);
    await journal.record({ kind: 'chain', table: 'filter', name: chain, family });
    await tables('filter', '-N', chain);
    await tables('filter', '-A', chain, '-i', o.bridge, '-o', o.bridge, '-j', 'ACCEPT');
    if (o.network.nat && family === 4) {
      await tables('filter', '-A', chain, '-i', o.bridge, '-s', subnet, '!', '-o', EMUCTL_INTERFACES, '-j', 'ACCEPT');
      await tables('filter', '-A', chain, '-o', o.bridge, '-d', subnet, '!', '-i', EMUCTL_INTERFACES, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT');
    }
    await tables('filter', '-A', chain, '-i', o.bridge, '-j', 'DROP');
    await tables('filter', '-A', chain, '-o', o.bridge, '-j', 'DROP');
    const jump = [...comment, '-j', chain];
    await journal.record({ kind: 'rule', table: 'filter', chain: 'FORWARD', spec: jump, family });
    await tables('filter', '-I', 'FORWARD', '1', ...jump);
  }
  if (o.network.nat) {
    await journal.record({ kind: 'chain', table: 'nat', name: natChain, family: 4 });
    await iptables('nat', '-N', natChain);
    await iptables('nat', '-A', natChain, '-s', subnet, '!', '-d', subnet, '-j', 'MASQUERADE');
    const postrouting = ['-s', subnet, ...comment, '-j', natChain];
    await journal.record({ kind: 'rule', table: 'nat', chain: 'POSTROUTING', spec: postrouting, family: 4 });
    await iptables('nat', '-I', 'POSTROUTING', '1', ...postrouting);
  }
}
