import type { FileHandle } from 'node:fs/promises';
import { NotFoundError } from '../errors.js';
import type { Engine } from './engine.js';
import { macString } from './mac-table.js';
import { errnoName, HOST_NIO_KINDS, type NativeAddon } from './native-addon.js';
import { hostNioError } from './nio-host.js';
import type { CompiledFilters } from './protocol.js';
import { bindError, connectError, type ResolvedTunnel } from './tunnel.js';
import type { DataplaneNodeKind, HostNioSpec, MacTableEntry, PortCounters } from './types.js';
import type { VlanSettings } from './vlan.js';

/** openNio's failing step. */
const SOCKET = 1, BIND = 2;
/** How often open captures are checked for a failed write (the threads write every 50 ms at most). */
const CAPTURE_CHECK_MS = 100;

function errnoError(n: number): NodeJS.ErrnoException {
  return Object.assign(new Error(errnoName(n)), { code: errnoName(n), errno: n });
}

/** The native engine: the C addon's threads move the frames; this class only translates ids and results. */
export class NativeEngine implements Engine {
  readonly name = 'native';
  private readonly handles = new Map<string, number>();
  /** Open captures (`node/port`), checked for a failed write while there are any. */
  private readonly captures = new Map<string, { handle: number; port: number; failed: (code: string) => void }>();
  private captureWatch: NodeJS.Timeout | null = null;

  constructor(private readonly addon: NativeAddon, threads: number, private readonly offload = true) {
    addon.start(threads);
  }

  addNode(id: string, kind: DataplaneNodeKind, ports: ReadonlyMap<number, VlanSettings>, ageingSeconds: number): void {
    const h = this.addon.addNode(kind === 'hub' ? 1 : 0, ageingSeconds * 1000);
    this.handles.set(id, h);
    this.setPorts(id, ports);
  }

  setPorts(id: string, ports: ReadonlyMap<number, VlanSettings>): void {
    const flat = new Int32Array(ports.size * 4);
    let i = 0;
    for (const [n, s] of ports) flat.set([n, s.mode, s.vlan, s.tpid], 4 * i++);
    this.addon.setPorts(this.handle(id), flat);
  }

  removeNode(id: string): void {
    this.addon.removeNode(this.handle(id));
    this.handles.delete(id);
  }

  setNodeSuspended(id: string, suspended: boolean): void {
    this.addon.setNodeSuspended(this.handle(id), suspended);
  }

  async openNio(id: string, port: number, t: ResolvedTunnel): Promise<void> {
    const failed = this.addon.openNio(this.handle(id), port, t.family, t.bindAddress, t.lport, t.remoteAddress, t.rport);
    if (!failed) return;
    const [step, errno] = failed;
    if (step === SOCKET || step === BIND) throw bindError(t, errnoName(errno));
    throw connectError(t, errnoName(errno));
  }

  async openHostNio(id: string, port: number, nio: HostNioSpec): Promise<void> {
    const errno = this.addon.openHostNio(this.handle(id), port, HOST_NIO_KINDS[nio.kind], nio.ifname, this.offload);
    if (errno) throw hostNioError(nio, errnoName(errno));
  }

  async closeNio(id: string, port: number): Promise<void> {
    this.addon.closeNio(this.handle(id), port);
  }

  setFilters(id: string, port: number, filters: CompiledFilters | null): void {
    const s = filters?.spec;
    const spec = s ? Float64Array.of(s.frequencyDrop, s.packetLoss, s.delayMs, s.jitterMs, s.corrupt, s.rateKbps, s.duplicate) : null;
    this.addon.setFilters(this.handle(id), port, spec, filters?.programs ?? []);
  }

  setPortSuspended(id: string, port: number, suspended: boolean): void {
    this.addon.setPortSuspended(this.handle(id), port, suspended);
  }

  resetCounters(id: string, port: number): void {
    this.addon.resetCounters(this.handle(id), port);
  }

  async openCapture(id: string, port: number, file: FileHandle, linkType: number, failed: (code: string) => void): Promise<void> {
    const handle = this.handle(id);
    try {
      const errno = this.addon.startCapture(handle, port, file.fd, linkType);
      if (errno) throw errnoError(errno);
    } finally {
      // The engine writes to its own duplicate of the descriptor.
      await file.close();
    }
    this.captures.set(`${id}/${port}`, { handle, port, failed });
    this.captureWatch ??= setInterval(() => this.checkCaptures(), CAPTURE_CHECK_MS);
  }

  async closeCapture(id: string, port: number): Promise<void> {
    this.forgetCapture(`${id}/${port}`);
    this.addon.stopCapture(this.handle(id), port);
  }

  /** The engine threads write the captures; a failed write is seen here and reported once. */
  private checkCaptures(): void {
    for (const [key, c] of this.captures) {
      let errno: number;
      try {
        errno = this.addon.captureError(c.handle, c.port);
      } catch {
        errno = 0; // the node went away: closeCapture forgets it
      }
      if (!errno) continue;
      this.forgetCapture(key);
      c.failed(errnoName(errno));
    }
  }

  private forgetCapture(key: string): void {
    this.captures.delete(key);
    if (this.captures.size === 0 && this.captureWatch) {
      clearInterval(this.captureWatch);
      this.captureWatch = null;
    }
  }

  stats(id: string): PortCounters[] {
    const a = this.addon.stats(this.handle(id));
    const out: PortCounters[] = [];
    for (let i = 0; i < a.length; i += 7) {
      out.push({ port: a[i], framesIn: a[i + 1], bytesIn: a[i + 2], framesOut: a[i + 3], bytesOut: a[i + 4], drops: a[i + 5], errors: a[i + 6] });
    }
    return out;
  }

  macTable(id: string): MacTableEntry[] {
    const a = this.addon.macTable(this.handle(id));
    const out: MacTableEntry[] = [];
    for (let i = 0; i < a.length; i += 4) out.push({ vlan: a[i], mac: macString(a[i + 1]), port: a[i + 2], age: Math.floor(a[i + 3] / 1000) });
    // Fixed-width hex, so string order is numeric order.
    return out.sort((x, y) => x.vlan - y.vlan || (x.mac < y.mac ? -1 : x.mac > y.mac ? 1 : 0));
  }

  async close(): Promise<void> {
    for (const key of [...this.captures.keys()]) this.forgetCapture(key);
    this.addon.stop();
    this.handles.clear();
  }

  private handle(id: string): number {
    const h = this.handles.get(id);
    if (h === undefined) throw new NotFoundError(`no dataplane node ${id}`);
    return h;
  }
}
