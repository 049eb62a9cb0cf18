/**
 * Finds and loads the native dataplane addon (native/ in the repository,
 * built by node-gyp at install into build/Release). Absent or unloadable,
 * the TypeScript engine is used instead.
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The addon's exports (native/binding.cc documents each). */
export interface NativeAddon {
  start(threads: number): number;
  stop(): void;
  addNode(kind: number, ageingMs: number): number;
  removeNode(handle: number): void;
  setPorts(handle: number, settings: Int32Array): void;
  setNodeSuspended(handle: number, suspended: boolean): void;
  openNio(handle: number, port: number, family: number, bindAddress: string, lport: number, remoteAddress: string, rport: number): [number, number] | undefined;
  openHostNio(handle: number, port: number, kind: number, ifname: string, offload: boolean): number;
  closeNio(handle: number, port: number): void;
  setFilters(handle: number, port: number, spec: Float64Array | null, programs: Uint32Array[]): void;
  setPortSuspended(handle: number, port: number, suspended: boolean): void;
  resetCounters(handle: number, port: number): void;
  startCapture(handle: number, port: number, fd: number, linkType: number): number;
  stopCapture(handle: number, port: number): void;
  /** 0 while the port's capture writes (or it has none), else the errno of the write that stopped it. */
  captureError(handle: number, port: number): number;
  stats(handle: number): Float64Array;
  macTable(handle: number): Float64Array;
  /** Host-side NIOs for the TypeScript engine (native/host-watch.cc). */
  hostOpen(kind: number, ifname: string): number;
  hostWatch(fd: number, onFrames: (frames: Buffer[], dropped: number) => void): HostWatchHandle;
  hostWrite(fd: number, frame: Buffer): number;
  hostUnwatch(handle: HostWatchHandle): void;
}

/** An opaque handle on a host NIO's watch thread. */
export type HostWatchHandle = { readonly __hostWatch: unique symbol };

/** The addon's numbers for host NIO kinds (native/dp.h DP_HOST_*). */
export const HOST_NIO_KINDS = { tap: 1, ethernet: 2 } as const;

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
/** "EBUSY" for the addon's errno numbers. */
export const errnoName = (n: number): string => ERRNO_NAMES.get(n) ?? `errno ${n}`;

/** Where node-gyp puts the addon (dist/src/daemon/dataplane → the repository root). */
export const NATIVE_ADDON_PATH = fileURLToPath(new URL('../../../../build/Release/emuctl_dataplane.node', import.meta.url));

/** Loads the addon, or says why it cannot. */
export function loadNativeAddon(): { addon: NativeAddon } | { addon: null; reason: string } {
  if (!existsSync(NATIVE_ADDON_PATH)) return { addon: null, reason: `${NATIVE_ADDON_PATH} is not built (npm run build:native)` };
  try {
    return { addon: createRequire(import.meta.url)(NATIVE_ADDON_PATH) as NativeAddon };
  } catch (e) {
    return { addon: null, reason: `cannot load ${NATIVE_ADDON_PATH}: ${(e as Error).message}` };
  }
}
