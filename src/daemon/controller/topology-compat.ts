import type { Topology } from './project.js';

/**
 * A topology written by GNS3 3.x (revision 10) repeats each node's `compute_id` inside its
 * `properties` and gives every node a `usage` there (null for VPCS, '' for a switch), which
 * GNS3 2.2's node schemas refuse. Both are dropped as the file is read (an empty usage means
 * none), so a 3.x export opens here with its nodes and links.
 */
export function normalizeTopology(topology: Topology): Topology {
  for (const node of topology.nodes ?? []) {
    const properties = (node as { properties?: unknown }).properties;
    if (!properties || typeof properties !== 'object' || Array.isArray(properties)) continue;
    const props = properties as Record<string, unknown>;
    delete props.compute_id;
    if (props.usage === null || props.usage === '') delete props.usage;
  }
  return topology;
}
