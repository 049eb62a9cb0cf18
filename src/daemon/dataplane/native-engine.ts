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

function errnoError(n: number): NodeJS.ErrnoException {
  return Object.assign(new Error(errnoName(n)), { code: errnoName(n), errno: n });
}

/** The native engine: the C addon's threads move the frames; this class only translates ids and results. */
export class NativeEngine implements Engine {
  readonly name = 'native';
  private readonly handles = new Map<string, number>();

  constructor(private readonly addon: NativeAddon, threads: number) {
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
    const errno = this.addon.openHostNio(this.handle(id), port, HOST_NIO_KINDS[nio.kind], nio.ifname);
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

  async openCapture(id: string, port: number, path: string, linkType: number, append: boolean): Promise<void> {
    const errno = this.addon.startCapture(this.handle(id), port, path, linkType, append);
    if (errno) throw errnoError(errno);
  }

  async closeCapture(id: string, port: number): Promise<void> {
    this.addon.stopCapture(this.handle(id), port);
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
    this.addon.stop();
    this.handles.clear();
  }

  private handle(id: string): number {
    const h = this.handles.get(id);
    if (h === undefined) throw new NotFoundError(`no dataplane node ${id}`);
    return h;
  }
}
