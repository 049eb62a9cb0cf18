import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { findForkedWorkers } from './forked-workers.js';
import { AsyncLock } from '../../../util/async-lock.js';
import { isSameRunningProcess, listProcesses, readCwd, identityOf, ticksSinceBoot, type ProcessIdentity } from '../../../util/proc-info.js';
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

/**
 * A process about to be spawned, written before the spawn: a daemon killed between spawn and
 * confirmation leaves this record, and its successor finds the process by what the intent names.
 */
export interface ProcessIntent {
  id: string;
  /** Exactly the argv it is spawned with (binary path first); it names the console port. */
  cmdline: string[];
  cwd?: string;
  label?: string;
  startedAt: string;
  /** Clock ticks since boot when the intent was written: the process cannot have started earlier. */
  notBefore: number;
}

interface RegistryFile {
  version: 1;
  processes: ProcessRecord[];
  intents?: ProcessIntent[];
}

/** Slack for the start-time comparison of an intent (ticks are read from two clocks). */
const INTENT_SLACK_TICKS = 100;

/**
 * The PIDs (with start time and command line) of every process a daemon started, kept in a JSON file
 * written atomically, so that a daemon restarted after a crash can stop what its predecessor left running.
 */
export class ProcessRegistry {
  private readonly lock = new AsyncLock();

  constructor(readonly filePath: string) {}

  /** The records in the file. */
  list(): Promise<ProcessRecord[]> {
    return this.lock.run(async () => (await this.read()).processes);
  }

  /** The intents not yet confirmed. */
  intents(): Promise<ProcessIntent[]> {
    return this.lock.run(async () => (await this.read()).intents);
  }

  /** Write-ahead: records a process about to be spawned; returns the intent's id for `confirm`. */
  async intend(intent: Omit<ProcessIntent, 'id' | 'notBefore' | 'startedAt'>): Promise<string> {
    const id = randomUUID();
    const record: ProcessIntent = { ...intent, id, startedAt: new Date().toISOString(), notBefore: ticksSinceBoot() };
    await this.change((file) => ({ ...file, intents: [...file.intents, record] }));
    return id;
  }

  /** Replaces an intent with the record of the process it became (one atomic write). */
  confirm(intentId: string, record: ProcessRecord): Promise<void> {
    return this.change((file) => ({
      processes: [...file.processes.filter((r) => r.pid !== record.pid), record],
      intents: file.intents.filter((i) => i.id !== intentId),
    }));
  }

  /** Forgets an intent whose spawn failed. */
  dropIntent(intentId: string): Promise<void> {
    return this.change((file) => ({ ...file, intents: file.intents.filter((i) => i.id !== intentId) }));
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
    return this.lock.run(async () => {
      const { processes: records, intents } = await this.read();
      const report: CleanupReport = { stopped: [], notRunning: [], failed: [] };
      const failedRecords: ProcessRecord[] = [];
      const failedIntents: ProcessIntent[] = [];
      await Promise.all(records.map(async (record) => {
        const leader = isSameRunningProcess(record) ? record : undefined;
        const workers = new Map<number, ProcessIdentity>();
        for (const w of record.workers) if (isSameRunningProcess(w)) workers.set(w.pid, w);
        for (const w of findForkedWorkers(record)) workers.set(w.pid, w);
        if (!leader && workers.size === 0) return void report.notRunning.push(record);
        const result = await terminateProcessTree(leader, [...workers.values()], graceMs);
        (result.gone ? report.stopped : report.failed).push(record);
        if (!result.gone) failedRecords.push(record);
      }));
      await Promise.all(intents.map(async (intent) => {
        const found = findIntended(intent);
        const asRecord: ProcessRecord = { ...(found[0] ?? { pid: 0, startTime: 0 }), cmdline: intent.cmdline, cwd: intent.cwd, label: intent.label, startedAt: intent.startedAt, workers: found.slice(1) };
        if (found.length === 0) return void report.notRunning.push(asRecord);
        const result = await terminateProcessTree(undefined, found, graceMs);
        if (result.gone) report.stopped.push(asRecord);
        else {
          report.failed.push(asRecord);
          failedIntents.push(intent);
        }
      }));
      await this.write({ processes: failedRecords, intents: failedIntents });
      return report;
    });
  }

  private mutate(change: (records: ProcessRecord[]) => ProcessRecord[]): Promise<void> {
    return this.change((file) => ({ ...file, processes: change(file.processes) }));
  }

  private change(next: (file: Contents) => Contents): Promise<void> {
    return this.lock.run(async () => this.write(next(await this.read())));
  }

  private async read(): Promise<Contents> {
    const empty: Contents = { processes: [], intents: [] };
    let text: string;
    try {
      text = await readFile(this.filePath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty;
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as Partial<RegistryFile>;
      if (!Array.isArray(parsed.processes)) return empty;
      return {
        processes: parsed.processes.filter(isRecord).map((r) => ({ ...r, workers: r.workers.filter(isIdentity) })),
        intents: Array.isArray(parsed.intents) ? parsed.intents.filter(isIntent) : [],
      };
    } catch {
      return empty; // A torn or foreign file cannot name a process safely: start afresh.
    }
  }

  /** Temp file + fsync + rename + fsync of the directory: the file is always either old or new, never torn. */
  private async write(contents: Contents): Promise<void> {
    const dir = dirname(this.filePath);
    await mkdir(dir, { recursive: true });
    const body: RegistryFile = { version: 1, processes: contents.processes, ...(contents.intents.length ? { intents: contents.intents } : {}) };
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

interface Contents {
  processes: ProcessRecord[];
  intents: ProcessIntent[];
}

/**
 * The processes an unconfirmed intent became: exactly its command line (which names its console
 * port), started in its working directory no earlier than the intent was written. For VPCS that is
 * the parent and its forked worker.
 */
function findIntended(intent: ProcessIntent): ProcessIdentity[] {
  const found: ProcessIdentity[] = [];
  for (const proc of listProcesses()) {
    if (proc.pid === process.pid || proc.startTime < intent.notBefore - INTENT_SLACK_TICKS) continue;
    const identity = identityOf(proc.pid);
    if (!identity || identity.cmdline.length !== intent.cmdline.length || !identity.cmdline.every((a, i) => a === intent.cmdline[i])) continue;
    if (intent.cwd !== undefined && readCwd(proc.pid) !== intent.cwd) continue;
    found.push(identity);
  }
  return found.sort((a, b) => a.startTime - b.startTime || a.pid - b.pid);
}

function isIntent(value: unknown): value is ProcessIntent {
  const r = value as ProcessIntent;
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && Number.isFinite(r.notBefore) &&
    Array.isArray(r.cmdline) && r.cmdline.length > 0 && r.cmdline.every((a) => typeof a === 'string');
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
