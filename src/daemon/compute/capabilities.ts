import type { NodeTypeRegistry } from './node-types.js';

/** What makes up a compute's capabilities. */
export interface CapabilitiesSource {
  /** The GNS3 API version reported (`2.2.N`): GNS3 controllers refuse another major.minor. */
  gns3Version: string;
  nodeTypes: NodeTypeRegistry;
}

/**
 * `GET /v2/compute/capabilities`, with GNS3 2.2's keys only: a GNS3 2.2 controller stores the
 * answer in its compute JSON, whose schema forbids any other key (GNS3 3.0's cpus, memory and
 * disk_size make its `GET /v2/computes/{id}` fail with 400).
 */
export function computeCapabilities(src: CapabilitiesSource): Record<string, unknown> {
  return {
    version: src.gns3Version,
    node_types: src.nodeTypes.availableTypes(),
    platform: process.platform,
  };
}
