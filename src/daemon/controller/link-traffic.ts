import type { ComputeApi } from '../compute/compute-api.js';
import type { PortStats } from '../compute/nodes/dataplane-node.js';
import type { PortCounters } from '../dataplane/types.js';
import { LOCAL_COMPUTE_ID } from './computes.js';
import type { Lab } from './lab.js';
import type { ControllerLink, LinkEnd } from './link.js';

/** One link's counters, read on one of its ends (emuctl's `GET /v2/projects/{id}/traffic`). */
export interface LinkTraffic extends Omit<PortCounters, 'port'> {
  link_id: string;
  node_id: string;
  adapter_number: number;
  port_number: number;
  /** When the end's compute answered, in milliseconds since the epoch. */
  timestamp: number;
}

/** A compute's counters by `node/adapter/port`, and when they were read. */
interface ComputeCounters {
  at: number;
  ports: Map<string, PortStats>;
}

/**
 * The counters of each link of the lab, read on one end on a started node: the end on the local
 * compute when there is one, else the first whose compute gives counters. Each compute involved is
 * asked once, all at the same time; one that cannot answer (down, or a GNS3 compute without the
 * route) contributes nothing.
 */
export async function linkTraffic(lab: Lab): Promise<LinkTraffic[]> {
  const measurable = [...lab.links.values()].map((link) => ({ link, ends: startedEnds(link) }));
  const asked = new Map<string, ComputeApi>();
  for (const { ends } of measurable) {
    const local = ends.filter((e) => e.node.computeId === LOCAL_COMPUTE_ID);
    for (const end of local.length > 0 ? local : ends) asked.set(end.node.computeId, end.node.compute);
  }
  const answers = new Map(await Promise.all([...asked].map(async ([id, api]) => [id, await countersOn(api, lab.project.id)] as const)));
  return measurable.flatMap(({ link, ends }) => {
    for (const end of ends) {
      const answer = answers.get(end.node.computeId);
      const port = answer?.ports.get(portKey(end.node.id, end.adapter_number, end.port_number));
      if (answer && port?.framesIn !== undefined) return [trafficOf(link, end, port, answer.at)];
    }
    return [];
  });
}

/** The link's ends on started nodes, the local compute's first. */
function startedEnds(link: ControllerLink): LinkEnd[] {
  const started = link.ends.filter((e) => e.node.status === 'started');
  return [...started.filter((e) => e.node.computeId === LOCAL_COMPUTE_ID), ...started.filter((e) => e.node.computeId !== LOCAL_COMPUTE_ID)];
}

async function countersOn(compute: ComputeApi, projectId: string): Promise<ComputeCounters | undefined> {
  try {
    const nodes = await compute.projectStats(projectId);
    const ports = new Map<string, PortStats>();
    for (const node of nodes) for (const port of node.ports) ports.set(portKey(node.node_id, port.adapter_number, port.port_number), port);
    return { at: Date.now(), ports };
  } catch {
    // A compute that is down, a GNS3 compute (404) or one that does not know the project: no counters from it.
    return undefined;
  }
}

function portKey(nodeId: string, adapter: number, port: number): string {
  return `${nodeId.toLowerCase()}/${adapter}/${port}`;
}

function trafficOf(link: ControllerLink, end: LinkEnd, port: PortStats, at: number): LinkTraffic {
  return {
    link_id: link.id,
    node_id: end.node.id,
    adapter_number: end.adapter_number,
    port_number: end.port_number,
    framesIn: port.framesIn ?? 0,
    framesOut: port.framesOut ?? 0,
    bytesIn: port.bytesIn ?? 0,
    bytesOut: port.bytesOut ?? 0,
    drops: port.drops ?? 0,
    errors: port.errors ?? 0,
    timestamp: at,
  };
}
