import { dirname } from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { ConflictError, DomainError, InvalidError, isDiskProblem, NotFoundError, storageError } from '../errors.js';
import { openForWrite, relativeBelow, removeFileUnder } from '../safe-fs.js';
import { validateBpf } from './bpf-vm.js';
import type { Engine } from './engine.js';
import { isPassThrough } from './filters/spec.js';
import type { CaptureFailedEvent, Command, CompiledFilters } from './protocol.js';
import { checkHostNio, isHostNio } from './nio-host.js';
import { resolveTunnel } from './tunnel.js';
import type { CaptureInfo, DataplaneNodeKind, NioSpec, SwitchPortConfig } from './types.js';
import { parsePortConfigs } from './vlan.js';


interface PortState {
  nio: boolean;
  capture: CaptureInfo | null;
  /** Captures started on this port so far: a restarted capture is told apart from the old one. */
  generation: number;
  /** Serialises NIO and capture changes on this port. */
  lock: Promise<unknown>;
}

interface NodeState {
  kind: DataplaneNodeKind;
  ports: Map<number, PortState>;
  deleted: boolean;
}

const newPort = (): PortState => ({ nio: false, capture: null, generation: 0, lock: Promise.resolve() });

/**
 * The worker's command handler: validates each command, serialises NIO and
 * capture changes per port, keeps the capture bookkeeping, and has the engine
 * (TypeScript or native) do the work. Each method resolves once the change is in place.
 */
export class Dataplane {
  private readonly nodes = new Map<string, NodeState>();

  /** `report` gets what happens without a command: a capture a failed write stopped. */
  constructor(private readonly engine: Engine, private readonly report: (event: CaptureFailedEvent) => void = () => {}) {}

  /** Runs one command from the main thread. */
  async handle(cmd: Command): Promise<unknown> {
    switch (cmd.op) {
      case 'createNode': return this.createNode(cmd);
      case 'updatePorts': return this.updatePorts(cmd.nodeId, cmd.ports);
      case 'deleteNode': return this.deleteNode(cmd.nodeId);
      case 'setNodeSuspended': this.node(cmd.nodeId); return this.engine.setNodeSuspended(cmd.nodeId, cmd.suspended);
      case 'addNio': return this.addNio(cmd.nodeId, cmd.port, cmd.tunnel, cmd.filters, cmd.suspend);
      case 'updateNio': return this.updateNio(cmd.nodeId, cmd.port, cmd.filters, cmd.suspend);
      case 'removeNio': return this.removeNio(cmd.nodeId, cmd.port);
      case 'startCapture': return this.startCapture(cmd.nodeId, cmd.port, cmd.path, cmd.root ?? dirname(cmd.path), cmd.linkType, cmd.resumeGeneration);
      case 'stopCapture': return this.stopCapture(cmd.nodeId, cmd.port);
      case 'captureInfo': return this.port(this.node(cmd.nodeId), cmd.nodeId, cmd.port).capture;
      case 'stats': this.node(cmd.nodeId); return this.engine.stats(cmd.nodeId);
      case 'macTable': this.node(cmd.nodeId); return this.engine.macTable(cmd.nodeId);
      case 'close': return this.close();
      case 'engine': return this.engine.name;
    }
  }

  private node(id: string): NodeState {
    const n = this.nodes.get(id);
    if (!n) throw new NotFoundError(`no dataplane node ${id}`);
    return n;
  }

  private port(node: NodeState, id: string, n: number): PortState {
    const p = node.ports.get(n);
    if (!p) throw new NotFoundError(`node ${id} has no port ${n}`);
    return p;
  }

  private createNode({ nodeId: id, kind, ports, macAgeingSeconds }: Extract<Command, { op: 'createNode' }>): void {
    if (this.nodes.has(id)) throw new ConflictError(`dataplane node ${id} already exists`);
    if (kind !== 'switch' && kind !== 'hub') throw new InvalidError(`node kind must be switch or hub (got ${kind})`);
    const ageing = macAgeingSeconds ?? 300;
    if (typeof ageing !== 'number' || !(ageing >= 0)) throw new InvalidError(`MAC ageing must be a number of seconds >= 0 (got ${ageing})`);
    const parsed = parsePortConfigs(kind, ports);
    this.engine.addNode(id, kind, parsed, ageing);
    this.nodes.set(id, { kind, ports: new Map([...parsed.keys()].map((n) => [n, newPort()])), deleted: false });
  }

  private async updatePorts(id: string, configs: SwitchPortConfig[]): Promise<void> {
    const node = this.node(id);
    const parsed = parsePortConfigs(node.kind, configs);
    // Ports that go are unreachable at once, then closed; new ports appear once the engine has them.
    const removed = [...node.ports].filter(([n]) => !parsed.has(n));
    for (const [n] of removed) node.ports.delete(n);
    await Promise.all(removed.map(([n, p]) => this.exclusive(p, () => this.closePort(id, n, p))));
    if (node.deleted) throw new NotFoundError(`no dataplane node ${id}`);
    this.engine.setPorts(id, parsed);
    for (const n of parsed.keys()) if (!node.ports.has(n)) node.ports.set(n, newPort());
  }

  private async deleteNode(id: string): Promise<void> {
    const node = this.node(id);
    this.nodes.delete(id);
    node.deleted = true;
    await Promise.all([...node.ports].map(([n, p]) => this.exclusive(p, () => this.closePort(id, n, p))));
    this.engine.removeNode(id);
  }

  /** Runs `fn` after every earlier NIO/capture change on the port. */
  private exclusive<T>(port: PortState, fn: () => Promise<T>): Promise<T> {
    const run = port.lock.then(fn, fn);
    port.lock = run.catch(() => undefined);
    return run;
  }

  private addNio(id: string, n: number, nio: NioSpec, filters?: CompiledFilters, suspend?: boolean): Promise<void> {
    const node = this.node(id);
    const port = this.port(node, id, n);
    return this.exclusive(port, async () => {
      if (node.deleted || node.ports.get(n) !== port) throw new NotFoundError(`node ${id} has no port ${n}`);
      if (port.nio) throw new ConflictError(`port ${n} of node ${id} already has a NIO`);
      // Filters first: a bad bpf program fails before any socket is bound.
      this.setFilters(id, n, filters ?? null);
      this.engine.resetCounters(id, n);
      this.engine.setPortSuspended(id, n, suspend ?? false);
      try {
        if (isHostNio(nio)) await this.engine.openHostNio(id, n, checkHostNio(nio));
        else await this.engine.openNio(id, n, await resolveTunnel(nio));
      } catch (e) {
        this.engine.setFilters(id, n, null);
        throw e;
      }
      if (node.deleted || node.ports.get(n) !== port) {
        await this.engine.closeNio(id, n);
        throw new NotFoundError(`node ${id} or its port ${n} went away while the NIO was opening`);
      }
      port.nio = true;
    });
  }

  private setFilters(id: string, n: number, filters: CompiledFilters | null): void {
    for (const p of filters?.programs ?? []) {
      const err = validateBpf(p);
      if (err) throw new InvalidError(`bpf program rejected: ${err}`);
    }
    this.engine.setFilters(id, n, filters && !isPassThrough(filters.spec) ? filters : null);
  }

  private updateNio(id: string, n: number, filters?: CompiledFilters, suspend?: boolean): void {
    const port = this.port(this.node(id), id, n);
    if (!port.nio) throw new NotFoundError(`port ${n} of node ${id} has no NIO`);
    if (filters) this.setFilters(id, n, filters);
    if (suspend !== undefined) this.engine.setPortSuspended(id, n, suspend);
  }

  private removeNio(id: string, n: number): Promise<void> {
    const port = this.port(this.node(id), id, n);
    return this.exclusive(port, async () => {
      if (!port.nio) throw new NotFoundError(`port ${n} of node ${id} has no NIO`);
      await this.closePort(id, n, port);
    });
  }

  /** `resumeGeneration` (a rebuild after a worker restart): continue the file and keep the generation, so readers following it go on. */
  private startCapture(id: string, n: number, path: string, root: string, linkType: number, resumeGeneration?: number): Promise<CaptureInfo> {
    if (typeof path !== 'string' || !path) throw new InvalidError('capture path must be a non-empty string');
    const inside = relativeBelow(root, path);
    const port = this.port(this.node(id), id, n);
    return this.exclusive(port, async () => {
      if (!port.nio) throw new ConflictError(`port ${n} of node ${id} has no NIO: nothing to capture`);
      // A restart closes the old writer before the file is truncated: never two writers on one file.
      await this.stopWriter(id, n, port);
      const generation = resumeGeneration ?? port.generation + 1;
      let file: FileHandle | undefined;
      try {
        file = await openForWrite(root, inside, resumeGeneration !== undefined);
        await this.engine.openCapture(id, n, file, linkType, (code) => void this.captureFailed(id, n, port, generation, code));
      } catch (e) {
        // A new file the header did not fit in (full disk) is not left behind.
        if (file && resumeGeneration === undefined) await removeFileUnder(root, inside).catch(() => {});
        if (e instanceof DomainError) throw e;
        if (isDiskProblem(e)) throw storageError(path, e);
        throw new ConflictError(`cannot write capture file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (!port.nio) {
        await this.engine.closeCapture(id, n);
        throw new ConflictError(`port ${n} of node ${id} lost its NIO while the capture was starting`);
      }
      port.generation = generation;
      port.capture = { path, root, linkType, generation: port.generation };
      return port.capture;
    });
  }

  private stopCapture(id: string, n: number): Promise<void> {
    const port = this.port(this.node(id), id, n);
    return this.exclusive(port, async () => {
      if (!port.capture) throw new NotFoundError(`port ${n} of node ${id} is not capturing`);
      await this.stopWriter(id, n, port);
    });
  }

  /** A write of the capture failed: it stops (unless it was stopped or replaced meanwhile) and the main thread is told. */
  private captureFailed(id: string, n: number, port: PortState, generation: number, code: string): Promise<void> {
    return this.exclusive(port, async () => {
      const capture = port.capture;
      if (!capture || capture.generation !== generation) return;
      await this.stopWriter(id, n, port);
      this.report({ event: 'captureFailed', nodeId: id, port: n, path: capture.path, generation, code });
    });
  }

  private async stopWriter(id: string, n: number, port: PortState): Promise<void> {
    if (!port.capture) return;
    port.capture = null;
    await this.engine.closeCapture(id, n);
  }

  /** Closes the port's NIO and capture; the lport is free when this resolves. */
  private async closePort(id: string, n: number, port: PortState): Promise<void> {
    const hadNio = port.nio;
    port.nio = false;
    await Promise.all([this.stopWriter(id, n, port), hadNio ? this.engine.closeNio(id, n) : undefined]);
  }

  private async close(): Promise<void> {
    await Promise.all([...this.nodes.keys()].map((id) => this.deleteNode(id)));
    await this.engine.close();
  }
}
