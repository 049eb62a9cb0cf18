import type { Owner } from './ownership.js';
import type { UdpPortAllocator } from './udp-ports.js';
import type { ConsolePortAllocator } from './console-ports.js';
import type { MacByteAllocator } from './mac-bytes.js';

/** Everything a compute hands out to nodes, each allocation held by an owner and released with it. */
export class ComputeResources {
  constructor(readonly udpPorts: UdpPortAllocator, readonly consolePorts: ConsolePortAllocator, readonly macBytes: MacByteAllocator) {}

  /** Frees everything `owner` holds (a node deleted, or a node whose create failed). */
  releaseOwner(owner: Owner): void {
    this.udpPorts.releaseOwner(owner);
    this.consolePorts.releaseOwner(owner);
    this.macBytes.releaseOwner(owner);
  }

  /** Frees everything held for the project (it was closed or deleted). */
  releaseProject(projectId: string): void {
    this.udpPorts.releaseProject(projectId);
    this.consolePorts.releaseProject(projectId);
    this.macBytes.releaseProject(projectId);
  }
}
