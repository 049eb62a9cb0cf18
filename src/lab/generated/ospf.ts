// The OSPF module: OSPFv2 (and OSPFv3 with IPv6) on every addressed interface of a router.
// Point-to-point links run as such; links with hosts on them are passive; hello and dead
// timers and area/cost come from the link, else the node, else the lab.
import type { LabPlan, PlanInterface, PlanNode } from './model.js';

/** The loopback in the node's area, passive. */
export function ospfLoopbackLines(node: PlanNode, plan: LabPlan): string[] {
  const area = node.ospf.area ?? plan.settings.ospf.area;
  const lines = [` ip ospf area ${area}`, ' ip ospf passive'];
  if (plan.pools[6]) lines.push(` ipv6 ospf6 area ${area}`, ' ipv6 ospf6 passive');
  return lines;
}

/** An interface's OSPF lines. */
export function ospfInterfaceLines(node: PlanNode, iface: PlanInterface, plan: LabPlan): string[] {
  const lab = plan.settings.ospf;
  const area = iface.link.ospf.area ?? node.ospf.area ?? lab.area;
  const cost = iface.link.ospf.cost ?? node.ospf.cost ?? lab.cost;
  const lines: string[] = [];
  for (const [proto, prefix] of [['ip ospf', 4], ['ipv6 ospf6', 6]] as const) {
    if (!iface.address[prefix]) continue;
    lines.push(` ${proto} area ${area}`);
    if (iface.hostLink) {
      lines.push(` ${proto} passive`);
    } else {
      if (iface.link.kind === 'p2p') lines.push(` ${proto} network point-to-point`);
      lines.push(` ${proto} hello-interval ${lab.hello}`, ` ${proto} dead-interval ${lab.dead}`);
    }
    if (cost !== undefined) lines.push(` ${proto} cost ${cost}`);
  }
  return lines;
}

/**
 * Throttles for a lab, where FRR's own wait for a network of flapping WAN links: SPF at once, then held
 * 50 ms doubling up to 0.5 s (FRR: up to 5 s); a router's LSA re-originated at most every 100 ms (FRR: 5 s)
 * and accepted 50 ms after the last one (FRR: 1 s, where a faster one is dropped and sent again 5 s later).
 * A hundred routers booting one after the other change their LSAs that often.
 */
const OSPF_LAB_TIMERS = [' timers throttle spf 0 50 500', ' timers throttle lsa all 100', ' timers lsa min-arrival 50'];
const OSPF6_LAB_TIMERS = [' timers throttle spf 0 50 500', ' timers lsa min-arrival 50'];

/** `router ospf` (and `router ospf6`) with the router id and the lab's throttles. */
export function ospfRouterSection(node: PlanNode, plan: LabPlan): string[] {
  const lines = ['router ospf', ` ospf router-id ${node.routerId}`, ...OSPF_LAB_TIMERS, '!'];
  if (plan.pools[6]) lines.push('router ospf6', ` ospf6 router-id ${node.routerId}`, ...OSPF6_LAB_TIMERS, '!');
  return lines;
}
