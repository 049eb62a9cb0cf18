import type { ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { unlink } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../../errors.js';
import { launchRecorded, logTail } from '../../compute/process/launch.js';
import type { ProcessIdentity } from '../../../util/proc-info.js';
import { processListensOnUnix } from '../../compute/process/proc-sockets.js';
import type { ProcessRegistry } from '../../compute/process/process-registry.js';
import { DEFAULT_GRACE_MS, terminateProcessTree } from '../../../util/process-termination.js';
import { QmpClient } from './qmp.js';

/** File in the node directory that receives QEMU's stdout and stderr (GNS3's name). */
export const QEMU_LOG_FILE = 'qemu.log';
/** The QMP monitor socket in the node directory. */
export const QMP_SOCKET_FILE = 'qmp.sock';
/** The serial console's unix socket in the node directory (emuctl's console relay serves it on the TCP port). */
export const CONSOLE_SOCKET_FILE = 'console.sock';
/** The savevm snapshot name of on_close save_vm_state (GNS3's). */
export const SAVED_STATE = 'GNS3_SAVED_STATE';

export type OnClose = 'power_off' | 'shutdown_signal' | 'save_vm_state';

/** GNS3 process_priority names as nice values. */
const NICE: Record<string, number> = { realtime: -20, 'very high': -10, high: -5, normal: 0, low: 5, 'very low': 19 };

export interface QemuProcessOptions {
  binary: string;
  args: string[];
  nodeDir: string;
  /** File name (in nodeDir) of the serial console's unix socket, waited for at start. */
  consoleSocket?: string;
  processPriority?: string;
  registry?: ProcessRegistry;
  label?: string;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /** Time QEMU gets to end after `quit` or SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  /** Time a guest gets to power off after an ACPI shutdown (on_close shutdown_signal). */
  shutdownTimeoutMs?: number;
}

/** Why QEMU ended without `stop()`. */
export interface QemuExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines QEMU wrote to stderr (and stdout) in this run. */
  logTail: string;
}

export interface QemuProcess {
  /** QEMU ended on its own (guest powered off, crash, kill): report the node stopped. */
  once(event: 'exit', listener: (exit: QemuExit) => void): this;
}

/**
 * One supervised QEMU run: started through the process registry (write-ahead intent, own session,
 * minimal environment), driven through its QMP socket in the node directory for suspend, resume,
 * link state and clean shutdown, and stopped by the node's on_close policy with a bounded wait.
 */
export class QemuProcess extends EventEmitter {
  qmp?: QmpClient;
  private child?: ChildProcess;
  private identity?: ProcessIdentity;
  private logOffset = 0;
  private exited?: { code: number | null; signal: NodeJS.Signals | null };
  private ready = false;
  private stopping = false;

  constructor(readonly options: QemuProcessOptions) {
    super();
  }

  get pid(): number | undefined {
    return this.isRunning ? this.identity?.pid : undefined;
  }

  get isRunning(): boolean {
    return this.ready && !this.exited && !this.stopping;
  }

  get logPath(): string {
    return join(this.options.nodeDir, QEMU_LOG_FILE);
  }

  get qmpPath(): string {
    return join(this.options.nodeDir, QMP_SOCKET_FILE);
  }

  /** Starts QEMU; resolves once its QMP monitor answers and its serial console listens. */
  async start(): Promise<void> {
    const o = this.options;
    await unlink(this.qmpPath).catch(() => undefined);
    if (o.consoleSocket) await unlink(join(o.nodeDir, o.consoleSocket)).catch(() => undefined);
    const launched = await launchRecorded({
      binary: o.binary, args: o.args, cwd: o.nodeDir, logPath: this.logPath, registry: o.registry, label: o.label, env: o.env,
      onExit: (code, signal) => this.onExit(code, signal),
    });
    this.child = launched.child;
    this.identity = launched.identity;
    this.logOffset = launched.logOffset;
    try {
      if (o.processPriority && NICE[o.processPriority] !== undefined) setPriority(launched.identity.pid, NICE[o.processPriority]);
    } catch {
      // A higher priority needs privileges; the VM runs at the default one.
    }
    try {
      await this.waitUntilReady();
    } catch (err) {
      await this.terminate();
      throw err;
    }
    this.ready = true;
  }

  /** Stops QEMU by the on_close policy, then SIGTERM/SIGKILL whatever is left; resolves once it is gone. */
  async stop(onClose: OnClose = 'power_off'): Promise<void> {
    if (!this.child || this.exited) return;
    this.stopping = true;
    const o = this.options;
    const gone = () => this.waitExit(o.stopGraceMs ?? DEFAULT_GRACE_MS);
    try {
      if (onClose === 'shutdown_signal') {
        await this.qmp?.execute('system_powerdown');
        if (await this.waitExit(o.shutdownTimeoutMs ?? 30_000)) return void (await this.terminate());
      }
      if (onClose === 'save_vm_state') {
        await this.qmp?.execute('stop');
        await this.qmp?.execute('human-monitor-command', { 'command-line': `savevm ${SAVED_STATE}` });
      }
      await this.qmp?.execute('quit').catch(() => undefined);
      await gone();
    } catch {
      // The monitor failed: fall back to signals.
    }
    await this.terminate();
  }

  /** Pauses the guest's CPUs (QMP stop). */
  async suspend(): Promise<void> {
    await this.monitor().execute('stop');
  }

  /** Resumes the guest's CPUs (QMP cont). */
  async resume(): Promise<void> {
    await this.monitor().execute('cont');
  }

  /** Sets the link state the guest sees on an adapter (QMP set_link). */
  async setLink(netdev: string, up: boolean): Promise<void> {
    await this.monitor().execute('set_link', { name: netdev, up });
  }

  /** QMP query-status: running, paused, shutdown, … or null when not running. */
  async monitorStatus(): Promise<string | null> {
    if (!this.isRunning || !this.qmp) return null;
    const answer = await this.qmp.execute<{ status?: string }>('query-status').catch(() => undefined);
    return answer?.status ?? null;
  }

  private monitor(): QmpClient {
    if (!this.isRunning || !this.qmp) throw new ConflictError('QEMU is not running');
    return this.qmp;
  }

  private async waitUntilReady(): Promise<void> {
    const o = this.options;
    const timeout = o.startTimeoutMs ?? 15_000;
    const deadline = Date.now() + timeout;
    const failed = async (what: string) => {
      const tail = await logTail(this.logPath, this.logOffset);
      return new ConflictError(`QEMU ${what}${tail ? `: ${tail.split('\n').slice(-5).join(' | ')}` : ''}`);
    };
    try {
      this.qmp = await QmpClient.connect(this.qmpPath, timeout, () => !this.exited);
    } catch (err) {
      if (this.exited) {
        await this.exitSettled();
        throw await failed(`exited (${describe(this.exited)}) while starting`);
      }
      throw err;
    }
    while (o.consoleSocket !== undefined && !processListensOnUnix(this.identity!.pid, o.consoleSocket)) {
      if (this.exited) throw await failed(`exited (${describe(this.exited)}) while starting`);
      if (Date.now() >= deadline) throw await failed(`did not open its console socket ${o.consoleSocket} within ${timeout} ms`);
      await sleep(25);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = { code, signal };
    this.qmp?.close();
    if (this.stopping || !this.ready) return;
    void (async () => {
      await this.options.registry?.remove(this.identity!.pid).catch(() => undefined);
      this.emit('exit', { code, signal, logTail: await logTail(this.logPath, this.logOffset) } satisfies QemuExit);
    })();
  }

  /** Waits for the exit event; true when it came within `ms`. */
  private async waitExit(ms: number): Promise<boolean> {
    if (this.exited) return true;
    if (!this.child) return true;
    return Promise.race([once(this.child, 'exit').then(() => true), sleep(ms, false, { ref: false })]);
  }

  /** The exit event fires before stdio is flushed to the log; a short wait lets the last lines land. */
  private async exitSettled(): Promise<void> {
    await sleep(50);
  }

  private async terminate(): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    this.qmp?.close();
    if (!this.exited) {
      await terminateProcessTree(identity, [], this.options.stopGraceMs ?? DEFAULT_GRACE_MS);
      await this.waitExit(1000);
    }
    await this.options.registry?.remove(identity.pid).catch(() => undefined);
  }
}

function describe(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}
