import { hostname } from 'node:os';
import type { ComputeApi } from '../compute/compute-api.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { hostUsage } from '../host-usage.js';

/** A compute as the controller knows it (the password never leaves the registry). */
export interface ComputeRecord {
  compute_id: string;
  name: string;
  protocol: 'http' | 'https';
  host: string;
  port: number;
  user: string | null;
  password?: string | null;
  connected: boolean;
  last_error: string | null;
  capabilities: Record<string, unknown>;
  cpu_usage_percent: number | null;
  memory_usage_percent: number | null;
}

export const LOCAL_COMPUTE_ID = 'local';

/** The computes registry; the built-in `local` compute is this daemon's own. */
export class ComputeRegistry {
  private readonly computes = new Map<string, ComputeRecord>();
  private readonly apis = new Map<string, ComputeApi>();

  constructor(deps: { local?: { host: string; port: number; capabilities: () => Record<string, unknown> } }) {
    if (deps.local) {
      const { host, port, capabilities } = deps.local;
      const local: ComputeRecord = {
        compute_id: LOCAL_COMPUTE_ID,
        name: hostname(),
        protocol: 'http',
        host,
        port,
        user: null,
        connected: true,
        last_error: null,
        get capabilities() {
          return capabilities();
        },
        cpu_usage_percent: null,
        memory_usage_percent: null,
      };
      this.computes.set(LOCAL_COMPUTE_ID, local);
    }
  }

  /** Records the port the daemon really listens on (known only after listen, e.g. with port 0). */
  setLocalPort(port: number): void {
    const local = this.computes.get(LOCAL_COMPUTE_ID);
    if (local) local.port = port;
  }

  /** Sets how the controller talks to a compute (in process for local, HTTP for remote ones). */
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

  /** The address other computes and clients use to reach this compute (a wildcard bind means loopback here). */
  hostOf(id: string): string {
    const host = this.get(id).host;
    return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  }

  list(): ComputeRecord[] {
    return [...this.computes.values()];
  }

  /** The compute with that id, or NotFoundError. */
  get(id: string): ComputeRecord {
    const compute = this.computes.get(id);
    if (!compute) throw new NotFoundError(`Compute ID ${id} doesn't exist`);
    return compute;
  }

  /** Removes a compute; the local one cannot go. */
  remove(id: string): void {
    this.get(id);
    if (id === LOCAL_COMPUTE_ID) throw new ConflictError('The local compute cannot be deleted');
    this.computes.delete(id);
  }

  /** The GNS3 compute JSON, without the password; the local compute reports live usage. */
  toJSON(compute: ComputeRecord): Record<string, unknown> {
    const { password: _password, ...visible } = compute;
    const usage = compute.compute_id === LOCAL_COMPUTE_ID ? hostUsage() : {};
    return { ...visible, capabilities: compute.capabilities, ...usage };
  }
}
