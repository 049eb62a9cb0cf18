// Addresses for a generated lab, from its pools: a loopback (and router id) per router, a /31
// (or /30) per point-to-point link, a /24 per LAN or host link, a gateway per host; the same
// with /128 and /64 in IPv6 when the lab asks. Pinned addresses are kept and never handed out
// again. Deterministic: nodes and links are taken in file order.
import { LabFileError } from '../locate.js';
import type { Pos } from '../file-position.js';
import { blockSize, networkOf, overlaps, prefixText, type Prefix } from './ip.js';
import type { LabPlan, PlanInterface, PlanLink, PlanNode } from './model.js';

/** Hands out blocks of a pool in order, skipping pinned ones. */
class Pool {
  private cursor: bigint;
  private readonly end: bigint;

  constructor(private readonly name: string, readonly prefix: Prefix, private readonly reserved: Prefix[], private readonly file: string, skipNetwork: boolean) {
    const net = networkOf(prefix);
    this.cursor = net.value + (skipNetwork ? 1n : 0n);
    this.end = net.value + blockSize(prefix.family, prefix.length);
  }

  /** The next free block of this prefix length, or a LabFileError at `pos` when the pool is used up. */
  next(length: number, pos: Pos): Prefix {
    const size = blockSize(this.prefix.family, length);
    for (;;) {
      this.cursor = ((this.cursor + size - 1n) / size) * size;
      if (this.cursor + size > this.end) {
        throw new LabFileError(this.file, pos, `the ${this.name} pool ${prefixText(this.prefix)} is used up; give addressing: a larger one`);
      }
      const block: Prefix = { family: this.prefix.family, value: this.cursor, length };
      this.cursor += size;
      if (!this.reserved.some((r) => overlaps(r, block))) return block;
    }
  }
}

/** Fills in every loopback, link subnet, interface address and gateway of the plan. */
export function allocateAddresses(plan: LabPlan, file: string): void {
  const families = plan.pools[6] ? ([4, 6] as const) : ([4] as const);
  for (const family of families) {
    const pools = plan.pools[family]!;
    const reserved = [
      ...plan.nodes.flatMap((n) => (n.pinnedLoopback[family] ? [n.pinnedLoopback[family]!] : [])),
      ...plan.links.flatMap((l) => (l.pinned[family] ? [networkOf(l.pinned[family]![0])] : [])),
      ...(family === 4 ? plan.links.flatMap((l) => (l.vlan?.prefix ? [l.vlan.prefix] : [])) : []),
    ];
    const loopbacks = new Pool(`${family === 4 ? 'IPv4' : 'IPv6'} loopback`, pools.loopback, reserved, file, true);
    const p2p = new Pool(`${family === 4 ? 'IPv4' : 'IPv6'} p2p`, pools.p2p, reserved, file, false);
    const lan = new Pool(`${family === 4 ? 'IPv4' : 'IPv6'} lan`, pools.lan, reserved, file, false);
    const hostBits = family === 4 ? 32 : 128;
    for (const node of plan.nodes) {
      if (node.role !== 'router') continue;
      node.loopback[family] = node.pinnedLoopback[family] ?? loopbacks.next(hostBits, node.pos);
    }
    for (const link of plan.links) {
      const pinned = link.pinned[family];
      if (pinned) {
        link.subnet[family] = networkOf(pinned[0]);
        continue;
      }
      if (family === 4 && link.vlan?.prefix) {
        link.subnet[4] = link.vlan.prefix;
        continue;
      }
      if (link.kind === 'p2p') {
        const length = family === 4 ? (link.p2pPrefix ?? plan.pools.p2pPrefix) : 64;
        link.subnet[family] = p2p.next(length, link.pos);
      } else {
        link.subnet[family] = lan.next(family === 4 ? 24 : 64, link.pos);
      }
    }
  }
  const byName = new Map(plan.nodes.map((n) => [n.name, n]));
  for (const link of plan.links) addLinkInterfaces(link, byName, families);
  for (const node of plan.nodes) {
    if (node.role === 'router') node.routerId = node.loopback[4] ? prefixText(node.loopback[4]).split('/')[0] : undefined;
    node.interfaces.sort((a, b) => a.adapter - b.adapter || (a.vlan?.id ?? 0) - (b.vlan?.id ?? 0));
  }
  for (const node of plan.nodes) if (node.role === 'host') setGateway(node, byName);
}

/** Each member's interface and address on the link: pinned ones as written, else routers first, then hosts, from the subnet's first address (a /31 from its very first). */
function addLinkInterfaces(link: PlanLink, byName: Map<string, PlanNode>, families: readonly (4 | 6)[]): void {
  const order = [...link.members.keys()].sort((a, b) => rank(byName, link, a) - rank(byName, link, b));
  const addresses = new Map<number, PlanInterface['address']>(link.members.map((_, i) => [i, {}]));
  for (const family of families) {
    const subnet = link.subnet[family]!;
    const pinned = link.pinned[family];
    order.forEach((memberIndex, k) => {
      const first = family === 4 && subnet.length === 31 ? 0n : 1n;
      addresses.get(memberIndex)![family] = pinned ? pinned[memberIndex] : { family, value: subnet.value + first + BigInt(k), length: subnet.length };
    });
  }
  const hostLink = link.members.some((m) => byName.get(m.node)!.role === 'host');
  link.members.forEach((member, i) => {
    const node = byName.get(member.node)!;
    const parent = `eth${member.adapter}`;
    node.interfaces.push({
      name: member.vlan ? `${parent}.${member.vlan}` : parent,
      adapter: member.adapter,
      ...(member.vlan ? { vlan: { parent, id: member.vlan } } : {}),
      link,
      address: addresses.get(i)!,
      peers: link.members.flatMap((other, j) => (j === i ? [] : [{ node: other.node, address: addresses.get(j)! }])),
      hostLink,
    });
  });
}

function rank(byName: Map<string, PlanNode>, link: PlanLink, memberIndex: number): number {
  return (byName.get(link.members[memberIndex].node)!.role === 'router' ? 0 : 1e6) + memberIndex;
}

/** A host's default gateway: the first router on the first of its links that has one. */
function setGateway(node: PlanNode, byName: Map<string, PlanNode>): void {
  for (const iface of node.interfaces) {
    const router = iface.peers.find((p) => byName.get(p.node)!.role === 'router');
    if (!router) continue;
    if (router.address[4]) node.gateway[4] = router.address[4];
    if (router.address[6]) node.gateway[6] = router.address[6];
    return;
  }
}
