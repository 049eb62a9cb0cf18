import type { Logger } from '../logger.js';
import { computeRequest, errorMessageOf } from './compute-http.js';
import type { ComputeRecord } from './computes.js';

const POLL_MS = 5000;
const MAX_BACKOFF_MS = 60_000;
const CHECK_TIMEOUT_MS = 5000;

/** Keeps each remote compute's `connected`, `last_error`, capabilities and usage fresh, backing off while it is down. */
export class ComputeWatcher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();

  constructor(private readonly deps: { log?: Logger }) {}

  watch(record: ComputeRecord): void {
    this.schedule(record, 0);
  }

  unwatch(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.failures.delete(id);
  }

  /** Checks a compute at once (after add or update) and goes on watching it. */
  async checkNow(record: ComputeRecord): Promise<void> {
    clearTimeout(this.timers.get(record.compute_id));
    await this.check(record);
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(record: ComputeRecord, delay: number): void {
    clearTimeout(this.timers.get(record.compute_id));
    this.timers.set(record.compute_id, setTimeout(() => void this.check(record), delay).unref());
  }

  private async check(record: ComputeRecord): Promise<void> {
    try {
      const version = await this.getJson(record, '/v2/compute/version');
      record.capabilities = await this.getJson(record, '/v2/compute/capabilities');
      const stats = await this.getJson(record, '/v2/compute/statistics').catch(() => ({}) as Record<string, unknown>);
      record.cpu_usage_percent = typeof stats.cpu_usage_percent === 'number' ? stats.cpu_usage_percent : null;
      record.memory_usage_percent = typeof stats.memory_usage_percent === 'number' ? stats.memory_usage_percent : null;
      if (!record.connected) this.deps.log?.info(`compute ${record.name} connected (version ${String(version.version)})`);
      record.connected = true;
      record.last_error = null;
      this.failures.delete(record.compute_id);
      this.schedule(record, POLL_MS);
    } catch (err) {
      const failures = (this.failures.get(record.compute_id) ?? 0) + 1;
      this.failures.set(record.compute_id, failures);
      if (record.connected || record.last_error !== (err as Error).message) this.deps.log?.warn(`compute ${record.name}: ${(err as Error).message}`);
      record.connected = false;
      record.last_error = (err as Error).message;
      this.schedule(record, Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1)));
    }
  }

  private async getJson(record: ComputeRecord, path: string): Promise<Record<string, unknown>> {
    const answer = await computeRequest(record, 'GET', path, { timeoutMs: CHECK_TIMEOUT_MS });
    if (answer.status >= 400) throw new Error(`${path} answered ${answer.status}: ${errorMessageOf(answer)}`);
    return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  }
}
