import { Worker } from 'node:worker_threads';
import { domainErrorOf } from '../errors.js';
import { BpfCompiler } from './bpf-compile.js';
import { parseFilters } from './filters/spec.js';
import type { Command, CompiledFilters, Reply } from './protocol.js';
import type {
  CaptureInfo, DataplaneApi, DataplaneNodeKind, LinkFilters, MacTableEntry, PortCounters, SwitchPortConfig, UdpTunnel,
} from './types.js';

export * from './types.js';

export interface DataplaneOptions {
  /** tcpdump binary that compiles bpf filters (default: `tcpdump` on PATH). */
  tcpdump?: string;
  /** Worker script; tests substitute one. Default: worker.js next to this module. */
  workerUrl?: URL;
}

/** Starts the dataplane worker thread and returns the API that drives it. */
export async function createDataplane(opts: DataplaneOptions = {}): Promise<DataplaneApi> {
  const client = new DataplaneClient(opts);
  await client.started;
  return client;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** Main-thread side: sends commands with request ids and settles each promise on the worker's answer. */
class DataplaneClient implements DataplaneApi {
  readonly started: Promise<void>;
  private readonly worker: Worker;
  private readonly bpf: BpfCompiler;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Set once the worker is gone (crash or close): every call then rejects with it. */
  private dead: Error | null = null;
  private closing: Promise<void> | null = null;

  constructor(opts: DataplaneOptions) {
    this.bpf = new BpfCompiler(opts.tcpdump);
    this.worker = new Worker(opts.workerUrl ?? new URL('./worker.js', import.meta.url));
    this.started = new Promise((resolve, reject) => {
      this.worker.once('online', resolve);
      this.worker.once('error', reject);
    });
    this.started.catch(() => undefined);
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (e: Error) => this.fail(new Error(`dataplane worker crashed: ${e?.message ?? e}`)));
    this.worker.on('messageerror', (e: Error) => this.fail(new Error(`dataplane worker sent an unreadable message: ${e.message}`)));
    this.worker.on('exit', (code) => this.fail(new Error(`dataplane worker exited unexpectedly (code ${code})`)));
  }

  createNode(nodeId: string, kind: DataplaneNodeKind, ports: SwitchPortConfig[], opts?: { macAgeingSeconds?: number }): Promise<void> {
    return this.call({ op: 'createNode', nodeId, kind, ports, macAgeingSeconds: opts?.macAgeingSeconds });
  }

  updatePorts(nodeId: string, ports: SwitchPortConfig[]): Promise<void> {
    return this.call({ op: 'updatePorts', nodeId, ports });
  }

  deleteNode(nodeId: string): Promise<void> {
    return this.call({ op: 'deleteNode', nodeId });
  }

  setNodeSuspended(nodeId: string, suspended: boolean): Promise<void> {
    return this.call({ op: 'setNodeSuspended', nodeId, suspended });
  }

  async addNio(nodeId: string, port: number, tunnel: UdpTunnel, opts?: { filters?: LinkFilters; suspend?: boolean }): Promise<void> {
    const filters = await this.compile(opts?.filters);
    return this.call({ op: 'addNio', nodeId, port, tunnel, filters, suspend: opts?.suspend });
  }

  async updateNio(nodeId: string, port: number, opts: { filters?: LinkFilters; suspend?: boolean }): Promise<void> {
    const filters = await this.compile(opts.filters);
    return this.call({ op: 'updateNio', nodeId, port, filters, suspend: opts.suspend });
  }

  removeNio(nodeId: string, port: number): Promise<void> {
    return this.call({ op: 'removeNio', nodeId, port });
  }

  startCapture(nodeId: string, port: number, path: string, linkType: number): Promise<CaptureInfo> {
    return this.call({ op: 'startCapture', nodeId, port, path, linkType });
  }

  stopCapture(nodeId: string, port: number): Promise<void> {
    return this.call({ op: 'stopCapture', nodeId, port });
  }

  captureInfo(nodeId: string, port: number): Promise<CaptureInfo | null> {
    return this.call({ op: 'captureInfo', nodeId, port });
  }

  stats(nodeId: string): Promise<PortCounters[]> {
    return this.call({ op: 'stats', nodeId });
  }

  macTable(nodeId: string): Promise<MacTableEntry[]> {
    return this.call({ op: 'macTable', nodeId });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.dead) await this.call({ op: 'close' }).catch(() => undefined);
      this.dead ??= new Error('the dataplane is closed');
      await this.worker.terminate();
    })();
    return this.closing;
  }

  /** Validates filters and compiles their bpf expressions here, so the worker never waits on tcpdump. */
  private async compile(filters: LinkFilters | undefined): Promise<CompiledFilters | undefined> {
    if (filters === undefined) return undefined;
    const spec = parseFilters(filters);
    return { spec, programs: await this.bpf.compileAll(spec.bpf) };
  }

  private call<T>(cmd: Command): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...cmd, id });
    });
  }

  private settle(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (reply.ok) p.resolve(reply.value);
    else p.reject(reply.kind === 'internal' ? new Error(`dataplane: ${reply.message}`) : domainErrorOf(reply.kind, reply.message));
  }

  private fail(err: Error): void {
    this.dead ??= err;
    for (const p of this.pending.values()) p.reject(this.dead);
    this.pending.clear();
  }
}
