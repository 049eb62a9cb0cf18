import { Worker } from 'node:worker_threads';
import { domainErrorOf, UnavailableError } from '../errors.js';
import { failpointArmed } from '../failpoints.js';
import { BpfCompiler } from './bpf-compile.js';
import { DesiredState } from './desired-state.js';
import { parseFilters } from './filters/spec.js';
import type { CaptureFailedEvent, Command, CompiledFilters, Reply, WorkerConfig } from './protocol.js';
import type {
  CaptureFailure, CaptureInfo, DataplaneApi, DataplaneNodeKind, LinkFilters, MacTableEntry, NioSpec, PortCounters, SwitchPortConfig,
} from './types.js';
import type { HeapFigures } from '../heap-watch.js';

/** Where the dataplane reports its worker's deaths and restarts. */
export interface DataplaneLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ClientOptions {
  config: WorkerConfig;
  workerUrl: URL;
  tcpdump?: string;
  log: DataplaneLog;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const RESTART_MIN_MS = 50;
const RESTART_MAX_MS = 5000;
/** A worker that lived this long resets the restart back-off. */
const STABLE_MS = 10_000;

/**
 * Main-thread side: sends commands with request ids and settles each promise
 * on the worker's answer. Supervises the worker: when it dies, the death is
 * logged with its reason, calls answer 503 (UnavailableError), and a
 * new worker is started and rebuilt from the desired state before calls are
 * taken again.
 */
export class DataplaneClient implements DataplaneApi {
  readonly engine: 'js' | 'native';
  private readonly bpf: BpfCompiler;
  private readonly desired = new DesiredState();
  private readonly pending = new Map<number, Pending>();
  private readonly captureListeners: ((failure: CaptureFailure) => void)[] = [];
  private readonly restartListeners = new Set<() => void>();
  private worker!: Worker;
  private nextId = 1;
  /** Set while the worker is down (crashed, restarting) or closed: calls reject with it. */
  private down: Error | null = null;
  private lastError: Error | null = null;
  private startedAt = 0;
  private backoff = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  private supervising = false;

  constructor(private readonly opts: ClientOptions) {
    this.engine = opts.config.engine;
    this.bpf = new BpfCompiler(opts.tcpdump);
  }

  /** Starts the first worker; rejects if it cannot start (then nothing is restarted). */
  async start(): Promise<void> {
    await this.spawn();
    this.supervising = true;
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

  async addNio(nodeId: string, port: number, tunnel: NioSpec, opts?: { filters?: LinkFilters; suspend?: boolean }): Promise<void> {
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

  startCapture(nodeId: string, port: number, path: string, linkType: number, root?: string): Promise<CaptureInfo> {
    return this.call({ op: 'startCapture', nodeId, port, path, root, linkType });
  }

  stopCapture(nodeId: string, port: number): Promise<void> {
    return this.call({ op: 'stopCapture', nodeId, port });
  }

  captureInfo(nodeId: string, port: number): Promise<CaptureInfo | null> {
    return this.call({ op: 'captureInfo', nodeId, port });
  }

  onCaptureFailed(listener: (failure: CaptureFailure) => void): void {
    this.captureListeners.push(listener);
  }

  onRestarted(listener: () => void): () => void {
    this.restartListeners.add(listener);
    return () => this.restartListeners.delete(listener);
  }

  stats(nodeId: string): Promise<PortCounters[]> {
    if (failpointArmed('dataplane.worker.crash')) this.worker.postMessage({ op: 'crash', id: 0 });
    return this.call({ op: 'stats', nodeId });
  }

  macTable(nodeId: string): Promise<MacTableEntry[]> {
    return this.call({ op: 'macTable', nodeId });
  }

  /** The worker's V8 heap; the first call starts watching its GCs. */
  heap(): Promise<HeapFigures> {
    if (this.down) return Promise.reject(this.down);
    return this.send({ op: 'heap' });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.restartTimer) clearTimeout(this.restartTimer);
      const wasUp = !this.down;
      this.down = new Error('the dataplane is closed');
      if (wasUp) await this.send({ op: 'close' }).catch(() => undefined);
      this.fail(this.down);
      await this.worker.terminate();
    })();
    return this.closing;
  }

  /** Normalises (already checked) filters and compiles their bpf expressions here, so the worker never waits on tcpdump. */
  private async compile(filters: LinkFilters | undefined): Promise<CompiledFilters | undefined> {
    if (filters === undefined) return undefined;
    const spec = parseFilters(filters);
    return { spec, programs: await this.bpf.compileAll(spec.bpf) };
  }

  private async call<T>(cmd: Command): Promise<T> {
    if (this.down) throw this.down;
    const value = await this.send<T>(cmd);
    this.desired.apply(cmd, value);
    return value;
  }

  private send<T>(cmd: Command): Promise<T> {
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

  private captureFailed({ nodeId, port, path, generation, code }: CaptureFailedEvent): void {
    this.desired.captureStopped(nodeId, port, generation);
    for (const listener of this.captureListeners) listener({ nodeId, port, path, code });
  }

  private fail(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** Starts a worker and waits until it runs; a worker that dies later is restarted by onExit. */
  private spawn(): Promise<void> {
    const worker = new Worker(this.opts.workerUrl, { workerData: this.opts.config });
    this.worker = worker;
    this.lastError = null;
    worker.on('message', (message: Reply | CaptureFailedEvent) => ('event' in message ? this.captureFailed(message) : this.settle(message)));
    worker.on('error', (e: Error) => (this.lastError = e));
    worker.on('messageerror', (e: Error) => (this.lastError = new Error(`unreadable message from the worker: ${e.message}`)));
    worker.on('exit', (code) => this.onExit(worker, code));
    return new Promise((resolve, reject) => {
      worker.once('online', () => {
        this.startedAt = Date.now();
        resolve();
      });
      worker.once('exit', () => reject(this.lastError ?? new Error('the dataplane worker exited before it started')));
    });
  }

  private onExit(worker: Worker, code: number): void {
    if (worker !== this.worker || this.closing || !this.supervising) return;
    const reason = this.lastError ? `${this.lastError.message}` : `exit code ${code}`;
    this.down = new UnavailableError(`the dataplane worker crashed (${reason}) and is restarting: retry shortly`);
    this.fail(this.down);
    if (Date.now() - this.startedAt > STABLE_MS) this.backoff = RESTART_MIN_MS;
    const { nodes, nios, captures } = this.desired.size();
    this.opts.log.error(`dataplane worker died: ${reason}; restarting it in ${this.backoff} ms and rebuilding ${nodes} nodes, ${nios} NIOs, ${captures} captures`);
    this.restartTimer = setTimeout(() => void this.restart(), this.backoff);
    this.backoff = Math.min(RESTART_MAX_MS, this.backoff * 2);
  }

  private async restart(): Promise<void> {
    this.restartTimer = null;
    try {
      await this.spawn();
    } catch {
      return; // onExit has scheduled the next attempt
    }
    const worker = this.worker;
    const failures: string[] = [];
    // Nodes in parallel, each node's commands in order.
    await Promise.all(this.desired.rebuild().map(async (commands) => {
      for (const cmd of commands) {
        await this.send(cmd).catch((e: Error) => failures.push(`${cmd.op} ${'nodeId' in cmd ? cmd.nodeId : ''}: ${e.message}`));
      }
    }));
    // Closed meanwhile, or died again while rebuilding (onExit runs the next attempt).
    if (this.closing || worker !== this.worker || this.lastError || worker.threadId < 0) return;
    for (const f of failures) this.opts.log.warn(`dataplane rebuild: ${f}`);
    const { nodes, nios, captures } = this.desired.size();
    this.opts.log.info(`dataplane worker restarted (${this.engine} engine): ${nodes} nodes, ${nios} NIOs, ${captures} captures rebuilt${failures.length ? `, ${failures.length} failures` : ''}`);
    this.down = null;
    for (const listener of [...this.restartListeners]) listener();
  }
}
