// The BGP module: eBGP with every router of another AS on a shared link (over the link's
// addresses), iBGP within an AS between loopbacks (a full mesh, or with the AS's route
// reflectors only; without OSPF, iBGP only over shared links), the loopback and host LANs advertised. Fast timers (keepalive 1 s, hold
// 3 s) so a lost link reroutes within seconds, not FRR's traditional 180 s.
import { prefixText, type Prefix } from './ip.js';
import type { LabPlan, PlanNode } from './model.js';

/** Keepalive and hold time, s. */
export const BGP_TIMERS = { keepalive: 1, hold: 3 } as const;

interface Neighbor {
  address: string;
  family: 4 | 6;
  as: number;
  description: string;
  internal: boolean;
  client: boolean;
}

const addr = (p: Prefix) => prefixText(p).split('/')[0];

/** The routers of each AS, in file order (computed once per plan). */
const asMembers = new WeakMap<LabPlan, Map<number, PlanNode[]>>();
function membersOf(plan: LabPlan, as: number): PlanNode[] {
  let map = asMembers.get(plan);
  if (!map) {
    map = new Map();
    for (const n of plan.nodes) if (n.role === 'router' && n.bgp.as !== undefined) map.set(n.bgp.as, [...(map.get(n.bgp.as) ?? []), n]);
    asMembers.set(plan, map);
  }
  return map.get(as) ?? [];
}

function neighbors(node: PlanNode, plan: LabPlan, byName: Map<string, PlanNode>): Neighbor[] {
  const out: Neighbor[] = [];
  const families = plan.pools[6] ? ([4, 6] as const) : ([4] as const);
  for (const iface of node.interfaces) {
    for (const peer of iface.peers) {
      const other = byName.get(peer.node)!;
      if (other.role !== 'router' || other.bgp.as === node.bgp.as) continue;
      for (const f of families) if (peer.address[f]) out.push({ address: addr(peer.address[f]!), family: f, as: other.bgp.as!, description: other.name, internal: false, client: false });
    }
  }
  if (!plan.settings.modules.includes('ospf')) {
    // No IGP to reach loopbacks: iBGP only with routers of the AS on a shared link, over it.
    for (const iface of node.interfaces) {
      for (const peer of iface.peers) {
        const other = byName.get(peer.node)!;
        if (other.role !== 'router' || other.bgp.as !== node.bgp.as) continue;
        for (const f of families) if (peer.address[f]) out.push({ address: addr(peer.address[f]!), family: f, as: other.bgp.as!, description: `${other.name} (iBGP)`, internal: true, client: false });
      }
    }
    return out;
  }
  const members = membersOf(plan, node.bgp.as!);
  const reflectors = members.filter((m) => m.bgp.rr);
  const peers = reflectors.length && !node.bgp.rr ? reflectors : members;
  for (const other of peers) {
    if (other === node) continue;
    for (const f of families) {
      if (other.loopback[f]) out.push({ address: addr(other.loopback[f]!), family: f, as: other.bgp.as!, description: `${other.name} (iBGP)`, internal: true, client: node.bgp.rr && !other.bgp.rr });
    }
  }
  return out;
}

/** `router bgp AS` of a router. */
export function bgpSection(node: PlanNode, plan: LabPlan): string[] {
  const byName = new Map(plan.nodes.map((n) => [n.name, n]));
  const list = neighbors(node, plan, byName);
  const lines = [
    `router bgp ${node.bgp.as}`,
    ` bgp router-id ${node.routerId}`,
    ' no bgp ebgp-requires-policy',
    ' no bgp default ipv4-unicast',
    ' bgp bestpath as-path multipath-relax',
    ` timers bgp ${BGP_TIMERS.keepalive} ${BGP_TIMERS.hold}`,
  ];
  for (const n of list) {
    lines.push(` neighbor ${n.address} remote-as ${n.as}`, ` neighbor ${n.address} description ${n.description}`);
    if (n.internal && plan.settings.modules.includes('ospf')) lines.push(` neighbor ${n.address} update-source lo`);
  }
  for (const family of plan.pools[6] ? ([4, 6] as const) : ([4] as const)) {
    lines.push(' !', ` address-family ${family === 4 ? 'ipv4' : 'ipv6'} unicast`);
    const networks = [node.loopback[family], ...node.interfaces.filter((i) => i.hostLink && i.link.subnet[family]).map((i) => i.link.subnet[family])];
    for (const p of networks) if (p) lines.push(`  network ${prefixText(p)}`);
    for (const n of list.filter((x) => x.family === family)) {
      lines.push(`  neighbor ${n.address} activate`);
      if (n.internal) lines.push(`  neighbor ${n.address} next-hop-self`);
      if (n.client) lines.push(`  neighbor ${n.address} route-reflector-client`);
    }
    lines.push(' exit-address-family');
  }
  lines.push('!');
  return lines;
}
