import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { findForkedWorkers } from './forked-workers.js';
import { isSameRunningProcess, type ProcessIdentity } from '../../../util/proc-info.js';
import { DEFAULT_GRACE_MS, terminateProcessTree } from '../../../util/process-termination.js';

/** One process the daemon started, as written to the registry file. */
export interface ProcessRecord extends ProcessIdentity {
  /** Working directory it was started in (identifies its orphaned workers). */
  cwd?: string;
  /** Free text for logs, e.g. `vpcs PC1 (node 5f0c…)`. */
  label?: string;
  /** ISO time the daemon started it. */
  startedAt: string;
  /** Processes it forked (VPCS's console worker), recorded once known. */
  workers: ProcessIdentity[];
}

/** What `cleanupLeftovers()` found. */
export interface CleanupReport {
  /** Records whose process (or forked worker) was still running and has been stopped. */
  stopped: ProcessRecord[];
  /** Records whose process was already gone, or whose PID now names another process (left alone). */
  notRunning: ProcessRecord[];
  /** Records whose processes survived even SIGKILL (kept in the file). */
  failed: ProcessRecord[];
}

interface RegistryFile {
  version: 1;
  processes: ProcessRecord[];
}

/**
 * The PIDs (with start time and command line) of every process a daemon started, kept in a JSON file
 * written atomically, so that a daemon restarted after a crash can stop what its predecessor left running.
 */
export class ProcessRegistry {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly filePath: string) {}

  /** The records in the file. */
  list(): Promise<ProcessRecord[]> {
    return this.serialize(() => this.read());
  }

  /** Records a started process (replacing any record with the same PID). */
  add(record: ProcessRecord): Promise<void> {
    return this.mutate((records) => [...records.filter((r) => r.pid !== record.pid), record]);
  }

  /** Sets the forked workers of a recorded process. */
  setWorkers(pid: number, workers: ProcessIdentity[]): Promise<void> {
    return this.mutate((records) => records.map((r) => (r.pid === pid ? { ...r, workers } : r)));
  }

  /** Forgets a process (after it was stopped or found dead). */
  remove(pid: number): Promise<void> {
    return this.mutate((records) => records.filter((r) => r.pid !== pid));
  }

  /**
   * On daemon start: stops every recorded process that still runs with the same identity (SIGTERM,
   * wait up to `graceMs`, SIGKILL), with the workers it forked, and clears those records.
   */
  cleanupLeftovers(graceMs = DEFAULT_GRACE_MS): Promise<CleanupReport> {
    return this.serialize(async () => {
      const records = await this.read();
      const report: CleanupReport = { stopped: [], notRunning: [], failed: [] };
      await Promise.all(records.map(async (record) => {
        const leader = isSameRunningProcess(record) ? record : undefined;
        const workers = new Map<number, ProcessIdentity>();
        for (const w of record.workers) if (isSameRunningProcess(w)) workers.set(w.pid, w);
        for (const w of findForkedWorkers(record)) workers.set(w.pid, w);
        if (!leader && workers.size === 0) return void report.notRunning.push(record);
        const result = await terminateProcessTree(leader, [...workers.values()], graceMs);
        (result.gone ? report.stopped : report.failed).push(record);
      }));
      await this.write(report.failed);
      return report;
    });
  }

  private mutate(change: (records: ProcessRecord[]) => ProcessRecord[]): Promise<void> {
    return this.serialize(async () => this.write(change(await this.read())));
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<ProcessRecord[]> {
    let text: string;
    try {
      text = await readFile(this.filePath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as Partial<RegistryFile>;
      if (!Array.isArray(parsed.processes)) return [];
      return parsed.processes.filter(isRecord).map((r) => ({ ...r, workers: r.workers.filter(isIdentity) }));
    } catch {
      return []; // A torn or foreign file cannot name a process safely: start afresh.
    }
  }

  /** Temp file + fsync + rename + fsync of the directory: the file is always either old or new, never torn. */
  private async write(records: ProcessRecord[]): Promise<void> {
    const dir = dirname(this.filePath);
    await mkdir(dir, { recursive: true });
    const body: RegistryFile = { version: 1, processes: records };
    const temp = join(dir, `.${basename(this.filePath)}.${process.pid}.${Date.now()}.tmp`);
    const file = await open(temp, 'w', 0o600);
    try {
      await file.writeFile(JSON.stringify(body, null, 2) + '\n');
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await rename(temp, this.filePath);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    const dirHandle = await open(dir, 'r');
    await dirHandle.sync().catch(() => undefined);
    await dirHandle.close();
  }
}

function isIdentity(value: unknown): value is ProcessIdentity {
  const r = value as ProcessIdentity;
  return (
    typeof r === 'object' && r !== null &&
    Number.isInteger(r.pid) && r.pid > 0 &&
    Number.isInteger(r.startTime) &&
    Array.isArray(r.cmdline) && r.cmdline.length > 0 && r.cmdline.every((a) => typeof a === 'string')
  );
}

function isRecord(value: unknown): value is ProcessRecord {
  return isIdentity(value) && Array.isArray((value as ProcessRecord).workers);
}
