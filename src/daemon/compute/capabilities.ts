import { statfsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { NodeTypeRegistry } from './node-types.js';

/** What makes up a compute's capabilities. */
export interface CapabilitiesSource {
  /** The GNS3 API version reported (`2.2.N`): GNS3 controllers refuse another major.minor. */
  gns3Version: string;
  emuctlVersion: string;
  nodeTypes: NodeTypeRegistry;
  /** Where projects live: `disk_size` is the size of that file system. */
  projectsDir: string;
}

/** `GET /v2/compute/capabilities`: what a GNS3 controller stores and shows (version, node types, platform, CPUs, memory, disk). */
export function computeCapabilities(src: CapabilitiesSource): Record<string, unknown> {
  return {
    version: src.gns3Version,
    node_types: src.nodeTypes.availableTypes(),
    platform: process.platform,
    cpus: cpus().length,
    memory: totalmem(),
    disk_size: diskSize(src.projectsDir),
    emuctl_version: src.emuctlVersion,
  };
}

/** Total bytes of the file system holding `path` (or its nearest existing parent). */
function diskSize(path: string): number {
  for (let p = path; ; p = dirname(p)) {
    try {
      const fs = statfsSync(p);
      return fs.blocks * fs.bsize;
    } catch {
      if (dirname(p) === p) return 0;
    }
  }
}
