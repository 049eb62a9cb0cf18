import type { DataplaneApi } from '../dataplane/types.js';
import type { Logger } from '../logger.js';
import type { NIO_ETHERNET_SCHEMA, NIO_NULL_SCHEMA, NIO_TAP_SCHEMA, NIO_UDP_SCHEMA } from '../schemas/nio.js';
import type { FromSchema } from '../schemas/validation.js';
import type { ComputeResources } from './resources.js';
import type { ComputeEvents } from './compute-events.js';
import type { HostInterfacePolicy } from './host-interface-policy.js';
import type { ManagementAccess } from './management/types.js';

/** What a compute node needs from its compute. */
export interface NodeContext {
  projectId: string;
  /** The compute project's directory (node working dirs and captures live under it). */
  projectDir: string;
  dataplane: DataplaneApi;
  /** The compute's allocators; what a node takes is held by nodeOwner(projectId, node id). */
  resources: ComputeResources;
  /** Address NIO sockets bind to. */
  bindHost: string;
  /** The host interfaces a client may name (cloud ports, nio_tap, nio_ethernet). */
  hostInterfaces: HostInterfacePolicy;
  log: Logger;
  /** The compute's notifications: a node's status change is published here (DataplaneNode's `status` setter does it). */
  events: ComputeEvents;
  /** The project's management network on this compute, when it has one (asked at each start: it may be set after the node). */
  management?: () => ManagementAccess | undefined;
}

/** A NIO as GNS3 sends and returns it. */
export type NioJson = FromSchema<typeof NIO_UDP_SCHEMA> | FromSchema<typeof NIO_NULL_SCHEMA> | FromSchema<typeof NIO_TAP_SCHEMA> | FromSchema<typeof NIO_ETHERNET_SCHEMA>;

export type NodeStatus = 'started' | 'stopped' | 'suspended';
