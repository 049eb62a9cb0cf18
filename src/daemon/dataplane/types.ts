/**
 * The dataplane's public contract, seen from the compute layer.
 *
 * The compute owns node and port bookkeeping (names, ports_mapping, UDP port
 * allocation) and calls a `DataplaneApi`; the dataplane owns sockets, frames,
 * MAC tables, filters and capture files, in a worker thread. Every call
 * resolves only once the worker has applied it (or rejects with a domain
 * error from ../errors.ts: InvalidError, NotFoundError, ConflictError).
 */
import type { HeapFigures } from '../heap-watch.js';

/** How a switch port treats VLAN tags (GNS3/dynamips semantics). */
export type SwitchPortType = 'access' | 'dot1q' | 'qinq';

export interface SwitchPortConfig {
  /** Port number as in GNS3's ports_mapping. */
  port: number;
  type: SwitchPortType;
  /** access: the port's VLAN; dot1q: the native (untagged) VLAN; qinq: the outer tag's VLAN. */
  vlan: number;
  /** qinq only: outer tag ethertype, 0x8100 (default), 0x88A8, 0x9100 or 0x9200. */
  ethertype?: number;
}

/** `switch` learns MACs per VLAN; `hub` floods every frame to every other port (also used as a 2-port wire). */
export type DataplaneNodeKind = 'switch' | 'hub';

export interface UdpTunnel {
  kind?: 'udp';
  /** Local address to bind (the compute's host address, default 127.0.0.1). */
  bindHost: string;
  lport: number;
  /** Name or IPv4/IPv6 address; the socket connects to rhost:rport and drops frames from anyone else. */
  rhost: string;
  rport: number;
}

/**
 * A host-side NIO (GNS3's nio_tap / nio_ethernet, ubridge's role), exchanging
 * raw Ethernet frames with a host interface:
 *  - tap: the dataplane opens the TAP device `ifname` (creating it when
 *    missing, attaching to it when it exists) and brings it up. A TAP it
 *    created is deleted by the kernel when the NIO is removed or the process
 *    dies; an existing one is left in place.
 *  - ethernet: an AF_PACKET socket bound to the existing interface `ifname`
 *    (every frame it receives; frames sent go out on it).
 */
export interface HostNioSpec {
  kind: 'tap' | 'ethernet';
  /** Interface name, 1-15 characters of [A-Za-z0-9_.-]. */
  ifname: string;
}

/** What a port's NIO connects to: a UDP tunnel (GNS3 nio_udp) or a host interface. */
export type NioSpec = UdpTunnel | HostNioSpec;

import type { LinkFilters } from '../../util/link-filters.js';
export type { LinkFilters };
export { PCAP_LINK_TYPES, type DataLinkType } from '../../util/data-link-types.js';

export interface PortCounters {
  port: number;
  framesIn: number;
  bytesIn: number;
  framesOut: number;
  bytesOut: number;
  /** Frames dropped on this port: runts, filters, suspend, full queues, send errors. */
  drops: number;
  /** Transient socket send/receive errors (counted, never fatal). */
  errors: number;
}

export interface MacTableEntry {
  mac: string; // "aa:bb:cc:dd:ee:ff"
  vlan: number;
  port: number;
  /** Seconds since the entry was last refreshed. */
  age: number;
}

export interface CaptureInfo {
  path: string;
  /** The directory below which no symbolic link on the way to `path` is followed. */
  root: string;
  linkType: number;
  /** Increments on every start on that port, so a restarted capture is told apart from the old one. */
  generation: number;
}

/** A capture that a failed write stopped. */
export interface CaptureFailure {
  nodeId: string;
  port: number;
  path: string;
  /** The errno name of the failed write (ENOSPC…). */
  code: string;
}

export interface DataplaneApi {
  /** Which engine moves the frames: the native addon or the TypeScript reference. */
  readonly engine?: 'js' | 'native';
  /** Create a node. `ports` lists the switch port configs (hub: the port numbers, type ignored). Ageing in seconds (switch, default 300). */
  createNode(nodeId: string, kind: DataplaneNodeKind, ports: SwitchPortConfig[], opts?: { macAgeingSeconds?: number }): Promise<void>;
  /** Replace the port configs of a node; live NIOs keep running with the new VLAN settings. */
  updatePorts(nodeId: string, ports: SwitchPortConfig[]): Promise<void>;
  /** Close every NIO and capture of the node and forget it. */
  deleteNode(nodeId: string): Promise<void>;
  /** Node-wide suspend: while true, every frame entering the node is dropped. */
  setNodeSuspended(nodeId: string, suspended: boolean): Promise<void>;

  /**
   * UDP: bind lport, connect to rhost:rport and attach to the port. ConflictError if the port has a NIO or lport cannot be bound; InvalidError for a bad bpf expression (libpcap's message).
   * TAP / ethernet: open the device or socket and attach it; InvalidError for a bad name, an interface that is not a TAP (tap) or does not exist (ethernet), ConflictError if it cannot be opened (busy, no permission).
   */
  addNio(nodeId: string, port: number, nio: NioSpec, opts?: { filters?: LinkFilters; suspend?: boolean }): Promise<void>;
  /** Change filters and/or suspend of an existing NIO (fields left undefined stay as they are). */
  updateNio(nodeId: string, port: number, opts: { filters?: LinkFilters; suspend?: boolean }): Promise<void>;
  /** Close the socket at once (the lport is free when this resolves) and flush the port's MAC entries. NotFoundError if no NIO. */
  removeNio(nodeId: string, port: number): Promise<void>;

  /**
   * Start writing the port's frames (both directions) to a new pcap file at `path` (truncated), reached
   * from `root` (default: the file's directory) with no symbolic link followed. Restarting replaces the previous capture.
   */
  startCapture(nodeId: string, port: number, path: string, linkType: number, root?: string): Promise<CaptureInfo>;
  /** Flush and close the capture file. NotFoundError if not capturing. */
  stopCapture(nodeId: string, port: number): Promise<void>;
  /** Current capture of a port, or null. */
  captureInfo(nodeId: string, port: number): Promise<CaptureInfo | null>;
  /** Calls `listener` when a failed write (full disk) stopped a capture: its file ends on its last whole record. */
  onCaptureFailed?(listener: (failure: CaptureFailure) => void): void;
  /**
   * Calls `listener` each time a restarted worker has rebuilt every node and NIO: a TAP it made again
   * is a new interface in the daemon's namespace (a docker node moves it into its container again).
   * Returns the function that removes the listener.
   */
  onRestarted?(listener: () => void): () => void;

  stats(nodeId: string): Promise<PortCounters[]>;
  macTable(nodeId: string): Promise<MacTableEntry[]>;

  /** The dataplane worker's V8 heap (for the memory log). */
  heap?(): Promise<HeapFigures>;

  /** Stop the worker: flush captures, close sockets. */
  close(): Promise<void>;
}
