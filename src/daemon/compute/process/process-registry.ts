import { mkdir, open, readFile, readdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { writeFileAtomic } from '../../atomic-write.js';
import { findForkedWorkers } from './forked-workers.js';
import { AsyncLock } from '../../../util/async-lock.js';
import { isSameRunningProcess, listProcesses, readCwd, identityOf, readProcStat, ticksSinceBoot, type ProcessIdentity } from '../../../util/proc-info.js';
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

/** The daemon a registry file belongs to: PID and kernel start time (a reused PID has another start time). */
export interface RegistryOwner {
  pid: number;
  startTime: number;
}

interface RegistryFile {
  version: 1;
  owner?: RegistryOwner;
  processes: ProcessRecord[];
  intents?: ProcessIntent[];
}

/** Slack for the start-time comparison of an intent (ticks are read from two clocks). */
const INTENT_SLACK_TICKS = 100;

/** Whether the daemon that owns a registry file is still running (then nothing in the file is a leftover). */
export function isOwnerAlive(owner: RegistryOwner): boolean {
  const stat = readProcStat(owner.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X' && stat.startTime === owner.startTime;
}

/** The identity this process writes into its registry file. */
export function thisProcessAsOwner(): RegistryOwner {
  return { pid: process.pid, startTime: readProcStat(process.pid)!.startTime };
}

/**
 * The PIDs (with start time and command line) of every process a daemon started, kept in a JSON file
 * written atomically, so that a daemon restarted after a crash can stop what its predecessor left running.
 * Each daemon has a file of its own (see `daemonRegistry`); the file names its owner, and a file whose
 * owner still runs is never cleaned up. An empty registry is no file.
 */
export class ProcessRegistry {
  private readonly lock = new AsyncLock();

  constructor(readonly filePath: string, private readonly owner?: RegistryOwner) {}

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
   * On daemon start, for a file whose owner is gone: stops every recorded process that still runs with
   * the same identity (SIGTERM, wait up to `graceMs`, SIGKILL), with the workers it forked, and clears
   * those records. A file whose owner runs is left alone. `spare` names processes never to touch (those
   * of running daemons), against look-alikes found by command line.
   */
  cleanupLeftovers(graceMs = DEFAULT_GRACE_MS, spare: (pid: number) => boolean = () => false): Promise<CleanupReport> {
    return this.lock.run(async () => {
      const { owner, processes: records, intents } = await this.read();
      const report: CleanupReport = { stopped: [], notRunning: [], failed: [] };
      if (owner && isOwnerAlive(owner)) return report;
      const failedRecords: ProcessRecord[] = [];
      const failedIntents: ProcessIntent[] = [];
      await Promise.all(records.map(async (record) => {
        const leader = isSameRunningProcess(record) && !spare(record.pid) ? record : undefined;
        const workers = new Map<number, ProcessIdentity>();
        for (const w of record.workers) if (isSameRunningProcess(w)) workers.set(w.pid, w);
        for (const w of findForkedWorkers(record)) workers.set(w.pid, w);
        for (const pid of workers.keys()) if (spare(pid)) workers.delete(pid);
        if (!leader && workers.size === 0) return void report.notRunning.push(record);
        const result = await terminateProcessTree(leader, [...workers.values()], graceMs);
        (result.gone ? report.stopped : report.failed).push(record);
        if (!result.gone) failedRecords.push(record);
      }));
      await Promise.all(intents.map(async (intent) => {
        const found = findIntended(intent).filter((p) => !spare(p.pid));
        const asRecord: ProcessRecord = { ...(found[0] ?? { pid: 0, startTime: 0 }), cmdline: intent.cmdline, cwd: intent.cwd, label: intent.label, startedAt: intent.startedAt, workers: found.slice(1) };
        if (found.length === 0) return void report.notRunning.push(asRecord);
        const result = await terminateProcessTree(undefined, found, graceMs);
        if (result.gone) report.stopped.push(asRecord);
        else {
          report.failed.push(asRecord);
          failedIntents.push(intent);
        }
      }));
      await this.write({ owner, processes: failedRecords, intents: failedIntents });
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
    const contents = await readContents(this.filePath, empty);
    return this.owner ? { ...contents, owner: this.owner } : contents;
  }

  /**
   * Temp file + fsync + rename + fsync of the directory: the file is always either old or new, never
   * torn. A registry with nothing in it is removed instead.
   */
  private async write(contents: Contents): Promise<void> {
    const dir = dirname(this.filePath);
    if (contents.processes.length === 0 && contents.intents.length === 0) {
      try {
        await unlink(this.filePath);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      return syncDirectory(dir);
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const body: RegistryFile = {
      version: 1,
      ...(contents.owner ? { owner: contents.owner } : {}),
      processes: contents.processes,
      ...(contents.intents.length ? { intents: contents.intents } : {}),
    };
    await writeFileAtomic(this.filePath, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const dirHandle = await open(dir, 'r');
  await dirHandle.sync().catch(() => undefined);
  await dirHandle.close();
}

async function readContents(filePath: string, empty: Contents): Promise<Contents> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<RegistryFile>;
    if (!Array.isArray(parsed.processes)) return empty;
    return {
      ...(isOwner(parsed.owner) ? { owner: { pid: parsed.owner.pid, startTime: parsed.owner.startTime } } : {}),
      processes: parsed.processes.filter(isRecord).map((r) => ({ ...r, workers: r.workers.filter(isIdentity) })),
      intents: Array.isArray(parsed.intents) ? parsed.intents.filter(isIntent) : [],
    };
  } catch {
    return empty; // A torn or foreign file cannot name a process safely: start afresh.
  }
}

/** `processes-{port}.{ownerPid}-{ownerStartTime}.json`; `processes-{port}.json` is the ownerless file of earlier versions. */
const REGISTRY_NAME = /^processes-(\d+)(?:\.(\d+)-(\d+))?\.json$/;

/** The registry of the daemon `owner` (by default this process) configured with `port`, in `runDir`. */
export function daemonRegistry(runDir: string, port: number, owner: RegistryOwner = thisProcessAsOwner()): ProcessRegistry {
  return new ProcessRegistry(join(runDir, `processes-${port}.${owner.pid}-${owner.startTime}.json`), owner);
}

/**
 * On daemon start: stops what dead daemons of this home left running (see `cleanupLeftovers`), file
 * by file, whatever port they were configured with (a daemon started with `--port 0` and restarted on
 * the port it got must find its leftovers). Files of daemons that still run (several can share one
 * home with `--port 0`) are left alone, and so is every process descending from a running daemon.
 * An ownerless file of an earlier version is cleaned only by a daemon configured with its port.
 */
export async function cleanupDeadDaemons(runDir: string, port: number, graceMs = DEFAULT_GRACE_MS): Promise<CleanupReport> {
  const report: CleanupReport = { stopped: [], notRunning: [], failed: [] };
  let names: string[];
  try {
    names = await readdir(runDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return report;
    throw err;
  }
  const live = new Set([process.pid]);
  const ours: string[] = [];
  for (const name of names) {
    const m = REGISTRY_NAME.exec(name);
    if (!m) continue;
    const owner = m[2] ? { pid: Number(m[2]), startTime: Number(m[3]) } : undefined;
    if (owner && isOwnerAlive(owner)) live.add(owner.pid);
    else if (owner || Number(m[1]) === port) ours.push(join(runDir, name));
  }
  const spare = (pid: number) => descendsFrom(pid, live);
  for (const file of ours) {
    const part = await new ProcessRegistry(file).cleanupLeftovers(graceMs, spare);
    report.stopped.push(...part.stopped);
    report.notRunning.push(...part.notRunning);
    report.failed.push(...part.failed);
  }
  return report;
}

/** Whether `pid` is one of `ancestors` or runs below one of them. */
function descendsFrom(pid: number, ancestors: Set<number>): boolean {
  for (let p = pid, depth = 0; p > 1 && depth < 32; depth++) {
    if (ancestors.has(p)) return true;
    const stat = readProcStat(p);
    if (!stat) return false;
    p = stat.ppid;
  }
  return false;
}

interface Contents {
  owner?: RegistryOwner;
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

function isOwner(value: unknown): value is RegistryOwner {
  const o = value as RegistryOwner;
  return typeof o === 'object' && o !== null && Number.isInteger(o.pid) && o.pid > 0 && Number.isInteger(o.startTime);
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
