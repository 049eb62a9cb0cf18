import { NotFoundError } from '../errors.js';
import type { ComputeProject } from './compute-project.js';
import type { PortStats } from './nodes/dataplane-node.js';

/** One node's ports in a project's counters (emuctl's `GET /v2/compute/projects/{id}/stats`). */
export interface NodePortStats {
  node_id: string;
  node_type: string;
  ports: PortStats[];
}

/**
 * Every node of the project with its ports, as the per-node `stats` route gives them; a node none of
 * whose ports has dataplane counters is left out, and so is one deleted while it was read.
 */
export async function projectPortStats(project: ComputeProject): Promise<NodePortStats[]> {
  const nodes = await Promise.all([...project.nodes.values()].map(async (node) => {
    const ports = await node.stats().catch((err) => {
      if (err instanceof NotFoundError) return [];
      throw err;
    });
    return { node_id: node.id, node_type: node.nodeType, ports };
  }));
  return nodes.filter((n) => n.ports.some((p) => p.framesIn !== undefined));
}
