/**
 * What the worker's command handler (dataplane.ts) drives: the part that
 * moves frames. Two implementations keep the same semantics: the TypeScript
 * engine (js-engine.ts, the reference and the fallback) and the native one
 * (native-engine.ts, the C addon in ../../../native). Nodes and ports are
 * named by the handler's ids; the handler validates and serialises first.
 */
import type { FileHandle } from 'node:fs/promises';
import type { CompiledFilters } from './protocol.js';
import type { ResolvedTunnel } from './tunnel.js';
import type { DataplaneNodeKind, HostNioSpec, MacTableEntry, PortCounters } from './types.js';
import type { VlanSettings } from './vlan.js';

export type EngineName = 'js' | 'native';

export interface Engine {
  readonly name: EngineName;
  addNode(id: string, kind: DataplaneNodeKind, ports: ReadonlyMap<number, VlanSettings>, ageingSeconds: number): void;
  /** Replaces the port list; ports that disappear have had their NIO and capture closed. Flushes the MAC table. */
  setPorts(id: string, ports: ReadonlyMap<number, VlanSettings>): void;
  /** Forgets the node; its NIOs and captures are closed already. */
  removeNode(id: string): void;
  setNodeSuspended(id: string, suspended: boolean): void;
  /** Binds, connects and attaches the socket; ConflictError / InvalidError as tunnel.ts words them. */
  openNio(id: string, port: number, tunnel: ResolvedTunnel): Promise<void>;
  /** Opens a TAP (creating it if missing) or an AF_PACKET socket on a host interface and attaches it; errors as nio-host.ts's hostNioError words them. */
  openHostNio(id: string, port: number, nio: HostNioSpec): Promise<void>;
  /** Closes the socket, TAP or packet socket (the lport is free when this resolves), the port's filters and its MAC entries. */
  closeNio(id: string, port: number): Promise<void>;
  /** Replaces the port's filters (null: none); frames held by the old ones are dropped and counted. */
  setFilters(id: string, port: number, filters: CompiledFilters | null): void;
  setPortSuspended(id: string, port: number, suspended: boolean): void;
  resetCounters(id: string, port: number): void;
  /**
   * Starts writing the port's frames to `file` (opened, truncated or appending, by the caller and handed
   * over); rejects with the errno as `code`. If a later write fails (full disk), the file is cut back to
   * its last whole record, the capture records no more, and `failed` gets the errno name, once.
   */
  openCapture(id: string, port: number, file: FileHandle, linkType: number, failed: (code: string) => void): Promise<void>;
  /** Flushes and closes the port's capture file. */
  closeCapture(id: string, port: number): Promise<void>;
  stats(id: string): PortCounters[];
  macTable(id: string): MacTableEntry[];
  close(): Promise<void>;
}
