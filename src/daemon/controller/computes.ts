import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ComputeApi } from '../compute/compute-api.js';
import { ConflictError, NotFoundError, storageError } from '../errors.js';
import { computeTrust } from './compute-trust.js';
import { hostUsage } from '../host-usage.js';
import { checkComputeHost } from './compute-host.js';
import type { Logger } from '../logger.js';
import type { Notification, NotificationSource } from '../notifications/notification.js';
import { reachableHost, type ComputeEndpoint } from './compute-http.js';
import { ComputeStore } from './compute-store.js';
import { ComputeGate } from './compute-gate.js';
import { ComputeStream } from './compute-stream.js';
import type { ControllerEvents } from './events.js';
import { GroupCommit } from './group-commit.js';
import { RemoteCompute } from './remote-compute.js';
import { takeOut } from '../../util/take-out.js';
import type { ComputeCreate, ComputeRecord } from './compute-record.js';

export type { ComputeCreate, ComputeRecord } from './compute-record.js';

export const LOCAL_COMPUTE_ID = 'local';

/** Receives what the computes report: their notifications (node.updated, log.*) and their reconnections. */
export interface ComputeReports {
  notification(computeId: string, message: Notification): void;
  /** The compute's stream opened again: its state may have changed meanwhile. */
  reconnected(computeId: string): void;
}

/** At most one compute.updated per compute this often for usage figures alone (GNS3 sends one per ping). */
const USAGE_PUBLISH_MS = 5000;

export interface ComputeRegistryDeps {
  local?: { protocol: 'http' | 'https'; host: string; port: number; capabilities: () => Record<string, unknown> };
  /** Where remote computes are saved (mode 0600); none = not persisted. */
  file?: string;
  /** Time allowed to calls made to remote computes. */
  timeoutMs?: number;
  log?: Logger;
  /** compute.created, compute.updated and compute.deleted go there. */
  events?: ControllerEvents;
}

/** The computes registry: the built-in `local` compute and the remote ones, persisted and watched. */
export class ComputeRegistry {
  private readonly computes = new Map<string, ComputeRecord>();
  private readonly apis = new Map<string, ComputeApi>();
  private readonly streams = new Map<string, ComputeStream>();
  private readonly gates = new Map<string, ComputeGate>();
  private readonly usagePublished = new Map<string, number>();
  private readonly store?: ComputeStore;
  /** A change is applied, written, and undone if the write fails (507). */
  private readonly writer = new GroupCommit(() => this.save(), (err) => storageError(this.deps.file ?? 'computes', err));
  private reports?: ComputeReports;

  constructor(private readonly deps: ComputeRegistryDeps) {
    if (deps.file) this.store = new ComputeStore(deps.file);
    if (deps.local) {
      const { protocol, host, port, capabilities } = deps.local;
      const local: ComputeRecord = {
        compute_id: LOCAL_COMPUTE_ID, name: hostname(), protocol, host, port, user: null,
        connected: true, last_error: null, get capabilities() { return capabilities(); },
        cpu_usage_percent: null, memory_usage_percent: null,
      };
      this.computes.set(LOCAL_COMPUTE_ID, local);
    }
  }

  /** Loads the saved remote computes and starts following their notification streams. */
  async load(): Promise<void> {
    for (const saved of (await this.store?.read()) ?? []) void this.streams.get(this.register(saved).compute_id)?.connect();
  }

  /** Where the computes' reports go (the controller's live state). */
  setReports(reports: ComputeReports): void {
    this.reports = reports;
  }

  /** The local compute reports in process, through its own emitter. */
  followLocal(source: NotificationSource): () => void {
    return source.subscribe((message) => this.reports?.notification(LOCAL_COMPUTE_ID, message));
  }

  /** Records the port the daemon really listens on (known only after listen, e.g. with port 0). */
  setLocalPort(port: number): void {
    const local = this.computes.get(LOCAL_COMPUTE_ID);
    if (local) local.port = port;
  }

  /** Sets how the controller talks to a compute (in process for local). */
  setApi(id: string, api: ComputeApi): void {
    this.apis.set(id, api);
  }

  /** The client of a compute, or NotFoundError. */
  api(id: string): ComputeApi {
    this.get(id);
    const api = this.apis.get(id);
    if (!api) throw new ConflictError(`Compute ${id} cannot be reached by this controller`);
    return api;
  }

  /**
   * The signal to call a compute with (none for the in-process local compute); UnavailableError (503)
   * while a remote compute is known to be disconnected, so that nobody waits for a time-out.
   */
  enter(id: string): AbortSignal | undefined {
    this.get(id);
    return this.gates.get(id)?.enter();
  }

  /** The address other computes and clients use to reach this compute (a wildcard bind means loopback here). */
  hostOf(id: string): string {
    return reachableHost(this.get(id).host);
  }

  list(): ComputeRecord[] {
    return [...this.computes.values()];
  }

  /** Whether a compute with that id is registered. */
  has(id: string): boolean {
    return this.computes.has(id);
  }

  /** The compute with that id, or NotFoundError. */
  get(id: string): ComputeRecord {
    const compute = this.computes.get(id);
    if (!compute) throw new NotFoundError(`Compute ID ${id} doesn't exist`);
    return compute;
  }

  /** Registers a remote compute, saves it and starts watching it; if the write fails (507), it is not registered. */
  async add(body: ComputeCreate): Promise<ComputeRecord> {
    const id = body.compute_id ?? randomUUID();
    if (this.computes.has(id)) throw new ConflictError(`Compute ID ${id} already exists`);
    checkComputeHost(body.host);
    const record = this.register({ ...body, ...computeTrust(body), compute_id: id });
    await this.writer.commit(() => this.forget(id));
    this.deps.events?.publish('compute.created', this.toJSON(record));
    await this.streams.get(id)!.connect();
    return record;
  }

  /** Changes a remote compute (address, credentials, name); if the write fails (507), it is as it was. */
  async update(id: string, body: Partial<ComputeCreate>): Promise<ComputeRecord> {
    const record = this.get(id);
    if (id === LOCAL_COMPUTE_ID) throw new ConflictError('The local compute cannot be changed');
    if (body.host !== undefined) checkComputeHost(body.host);
    const before = { ...record };
    const changed = { ...record, ...Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) };
    Object.assign(record, computeTrust(changed));
    for (const key of ['name', 'protocol', 'host', 'port', 'user', 'password'] as const) {
      if (body[key] !== undefined) (record as unknown as Record<string, unknown>)[key] = body[key];
    }
    await this.writer.commit(() => Object.assign(record, before));
    await this.streams.get(id)!.connect();
    this.deps.events?.publish('compute.updated', this.toJSON(record));
    return record;
  }

  /** Removes a compute (the local one cannot go); if the write fails (507), it stays, still watched. */
  async remove(id: string): Promise<void> {
    this.get(id);
    if (id === LOCAL_COMPUTE_ID) throw new ConflictError('The local compute cannot be deleted');
    const record = this.computes.get(id)!;
    await this.writer.commit(takeOut(this.computes, [id]));
    this.forget(id);
    this.deps.events?.publish('compute.deleted', this.toJSON(record));
  }

  /** Stops watching a compute and drops everything kept about it. */
  private forget(id: string): void {
    this.streams.get(id)?.close();
    this.streams.delete(id);
    this.gates.delete(id);
    this.usagePublished.delete(id);
    this.computes.delete(id);
    this.apis.delete(id);
  }

  /** The GNS3 compute JSON, without the password; the local compute reports live usage. */
  toJSON(compute: ComputeRecord): Record<string, unknown> {
    const { password: _password, ...visible } = compute;
    const usage = compute.compute_id === LOCAL_COMPUTE_ID ? hostUsage() : {};
    return { ...visible, capabilities: compute.capabilities, ...usage };
  }

  /** Stops following the computes (daemon shutdown). */
  close(): void {
    for (const stream of this.streams.values()) stream.close();
  }

  private register(body: ComputeCreate & { compute_id: string }): ComputeRecord {
    const record: ComputeRecord = {
      compute_id: body.compute_id,
      name: body.name ?? `${body.host}:${body.port}`,
      protocol: body.protocol ?? 'http',
      host: body.host,
      port: body.port,
      user: body.user ?? null,
      password: body.password ?? null,
      ca_cert: body.ca_cert ?? null,
      fingerprint: body.fingerprint ?? null,
      connected: false,
      last_error: null,
      capabilities: {},
      cpu_usage_percent: null,
      memory_usage_percent: null,
    };
    this.computes.set(record.compute_id, record);
    const gate = new ComputeGate(record);
    this.gates.set(record.compute_id, gate);
    this.apis.set(record.compute_id, new RemoteCompute(() => record, this.deps.timeoutMs ?? 30_000, this.deps.log, () => gate.enter()));
    this.streams.set(record.compute_id, new ComputeStream(record, {
      notification: (message) => this.reports?.notification(record.compute_id, message),
      connected: () => this.reports?.reconnected(record.compute_id),
      changed: (what) => this.changed(record, what),
    }, this.deps.log));
    return record;
  }

  /** Publishes compute.updated: at once for connection changes, at most every few seconds for usage alone. */
  private changed(record: ComputeRecord, what: 'connection' | 'usage'): void {
    if (what === 'connection' && !record.connected) this.gates.get(record.compute_id)?.disconnected();
    const now = Date.now();
    if (what === 'usage' && now - (this.usagePublished.get(record.compute_id) ?? 0) < USAGE_PUBLISH_MS) return;
    this.usagePublished.set(record.compute_id, now);
    this.deps.events?.publish('compute.updated', this.toJSON(record));
  }

  private async save(): Promise<void> {
    const remotes = this.list().filter((c) => c.compute_id !== LOCAL_COMPUTE_ID);
    await this.store?.write(remotes.map(({ compute_id, name, protocol, host, port, user, password, ca_cert, fingerprint }) => ({ compute_id, name, protocol, host, port, user, password, ca_cert, fingerprint })));
  }
}
