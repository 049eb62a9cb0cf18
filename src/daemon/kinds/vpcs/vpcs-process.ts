import type { ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, InvalidError } from '../../errors.js';
import { isTcpPortFree, isUdpPortFree } from '../../compute/console-ports.js';
import { findForkedWorkers } from '../../compute/process/forked-workers.js';
import { launchRecorded, logTail } from '../../compute/process/launch.js';
import { isSameRunningProcess, type ProcessIdentity } from '../../../util/proc-info.js';
import { processHoldsPort, processListensOnUnix } from '../../compute/process/proc-sockets.js';
import { ConsoleRelay } from '../../compute/console-relay.js';
import type { Logger } from '../../logger.js';
import type { ProcessRegistry } from '../../compute/process/process-registry.js';
import { DEFAULT_GRACE_MS, terminateProcessTree } from '../../../util/process-termination.js';
import { confinementEnvironment, consoleBindAddress, isConfined, VPCS_CONFINE_SHIM_PATH, type VpcsConfinement } from './confinement.js';
import { STARTUP_CONFIG_FILE } from './startup-config.js';
import { resolveVpcsBinary } from './vpcs-binary.js';

/** File in the node directory that receives VPCS's stdout and stderr. */
export const VPCS_LOG_FILE = 'vpcs.log';
/** The unix socket a confined VPCS serves its console on, in the node directory (the daemon relays the TCP port to it). */
export const VPCS_CONSOLE_SOCKET_FILE = 'console.sock';

/** How one VPCS is started. */
export interface VpcsProcessOptions {
  /** The node's working directory (created if missing); holds startup.vpc and vpcs.log. */
  nodeDir: string;
  /**
   * TCP port of the telnet console, on `confinement.consoleHost`: served by the daemon's console relay
   * (and its guard) in front of a confined VPCS's unix socket; bound by VPCS itself when unconfined.
   */
  consolePort: number;
  /** UDP port VPCS receives frames on (`-s`, bound on 127.0.0.1 when `remoteHost` is loopback). */
  localUdpPort: number;
  /** UDP port VPCS sends frames to (`-c`) on `remoteHost` (`-t`). */
  remoteUdpPort: number;
  remoteHost?: string;
  /** Last byte of the MAC address 00:50:79:66:68:XX (`-m`), 0-255. */
  macByte?: number;
  /** Executable name or path; default `vpcs` on PATH. */
  binary?: string;
  /** Records the PIDs so a restarted daemon can clean up after a crash. */
  registry?: ProcessRegistry;
  /** Free text stored with the registry record. */
  label?: string;
  /** The daemon's environment (VPCS gets only PATH of it) and where `vpcs` is looked up. */
  env?: NodeJS.ProcessEnv;
  /** How VPCS is confined (native/vpcs-confine.c); 'unconfined' starts it bare (vpcs_unconfined). */
  confinement?: VpcsConfinement | 'unconfined';
  startTimeoutMs?: number;
  /** Time VPCS gets to end after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  /** Where the console guard's warnings go (a dropped HTTP client); default stderr. */
  log?: Pick<Logger, 'warn'>;
  /** How often the forked worker's liveness is checked. */
  watchIntervalMs?: number;
}

/** Why a VPCS ended without `stop()`. */
export interface VpcsExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  reason: string;
  /** End of vpcs.log written by this run. */
  logTail: string;
}

export interface VpcsProcess {
  /** Emitted when VPCS ends without `stop()` (crash, kill, its worker died): report the node `stopped`. */
  on(event: 'exit', listener: (exit: VpcsExit) => void): this;
  once(event: 'exit', listener: (exit: VpcsExit) => void): this;
}

/**
 * One supervised VPCS (Debian 0.5b2). Facts it relies on: with `-p PORT -F` VPCS stays in the
 * foreground, calls setsid() and forkpty()s a worker (a session of its own) that runs the VPC and holds
 * the UDP port, while the parent relays the TCP console to the pty. SIGTERM to the parent ends both;
 * SIGKILL of the parent orphans the worker, which then spins on its dead pty and keeps the UDP port.
 */
export class VpcsProcess extends EventEmitter {
  private child?: ChildProcess;
  private leader?: ProcessIdentity;
  private workers: ProcessIdentity[] = [];
  private exited?: { code: number | null; signal: NodeJS.Signals | null };
  private ready = false;
  private stopping = false;
  private exitReason?: string;
  private watcher?: NodeJS.Timeout;
  private logOffset = 0;
  private relay?: ConsoleRelay;

  constructor(readonly options: VpcsProcessOptions) {
    super();
    validate(options);
  }

  /** PID of the supervised (parent) VPCS process while it runs. */
  get pid(): number | undefined {
    return this.isRunning ? this.leader?.pid : undefined;
  }

  /** PID of the forked worker that holds the UDP port. */
  get workerPid(): number | undefined {
    return this.isRunning ? this.workers[0]?.pid : undefined;
  }

  get isRunning(): boolean {
    return this.ready && this.exited === undefined && !this.stopping;
  }

  get logPath(): string {
    return join(this.options.nodeDir, VPCS_LOG_FILE);
  }

  private get consoleSocketPath(): string {
    return join(this.options.nodeDir, VPCS_CONSOLE_SOCKET_FILE);
  }

  /** The argv VPCS is started with (the startup script is added only when it exists). */
  arguments(): string[] {
    const o = this.options;
    const args = ['-p', String(o.consolePort), '-F', '-i', '1', '-m', String(o.macByte ?? 0),
      '-s', String(o.localUdpPort), '-c', String(o.remoteUdpPort), '-t', o.remoteHost ?? '127.0.0.1'];
    if (existsSync(join(o.nodeDir, STARTUP_CONFIG_FILE))) args.push(STARTUP_CONFIG_FILE);
    return args;
  }

  /** Starts VPCS; resolves once it listens on the console port and its worker holds the UDP port. */
  async start(): Promise<void> {
    if (this.isRunning) return;
    if (this.child) throw new ConflictError('This VPCS process object was already used; create a new one');
    const o = this.options;
    const binary = await resolveVpcsBinary(o.binary, o.env);
    const confinement = o.confinement ?? {};
    const extraEnv = confinement === 'unconfined' ? {} : await confinementEnvironment({ ...confinement, consoleSocket: VPCS_CONSOLE_SOCKET_FILE }, o.remoteHost ?? '127.0.0.1');
    await mkdir(o.nodeDir, { recursive: true, mode: 0o700 });
    if (!(await isTcpPortFree(o.consolePort))) throw new ConflictError(`Console port ${o.consolePort} is already in use`);
    if (!(await isUdpPortFree(o.localUdpPort))) throw new ConflictError(`UDP port ${o.localUdpPort} is already in use`);
    if (confinement !== 'unconfined') {
      await unlink(this.consoleSocketPath).catch(() => undefined);
      const relay = new ConsoleRelay(this.consoleSocketPath, `console of ${o.label ?? 'VPCS'} (port ${o.consolePort})`, o.log ?? { warn: (m) => process.stderr.write(`${m}\n`) });
      // On the IPv4 address VPCS itself would bind (its console has always been IPv4 only; clients rely on where it is).
      await relay.listen(await consoleBindAddress(confinement.consoleHost ?? '127.0.0.1'), o.consolePort);
      this.relay = relay;
    }

    const args = this.arguments();
    const launched = await launchRecorded({
      binary, args, cwd: o.nodeDir, logPath: this.logPath, registry: o.registry, label: o.label, env: o.env, extraEnv,
      onExit: (code, signal) => this.onExit(code, signal),
    }).catch(async (err) => {
      await this.closeRelay();
      throw err;
    });
    this.child = launched.child;
    this.logOffset = launched.logOffset;
    this.leader = launched.identity;

    try {
      await this.waitUntilReady();
      if (confinement !== 'unconfined') this.checkConfined(confinement.shim ?? VPCS_CONFINE_SHIM_PATH);
    } catch (err) {
      await this.terminate();
      throw err;
    }
    this.ready = true;
    await o.registry?.setWorkers(this.leader.pid, this.workers);
    this.watcher = setInterval(() => this.checkWorker(), o.watchIntervalMs ?? 1000).unref();
  }

  /** Stops VPCS: SIGTERM, up to `stopGraceMs`, then SIGKILL of it and its worker; frees both ports. */
  async stop(): Promise<void> {
    if (!this.child) return;
    this.stopping = true;
    await this.terminate();
  }

  private async waitUntilReady(): Promise<void> {
    const o = this.options;
    const deadline = Date.now() + (o.startTimeoutMs ?? 5000);
    const pid = this.leader!.pid;
    for (;;) {
      if (this.exited || this.stopping) {
        const tail = await this.logTail();
        const how = this.exited ? `exited (${describe(this.exited)})` : 'was stopped';
        // A shim ld.so could not preload leaves VPCS on its own TCP console, which the relay's port refuses.
        if (this.relay && /LD_PRELOAD cannot be preloaded/.test(tail)) throw notConfined(pid, o.confinement);
        if (/address already in use/i.test(tail)) throw new ConflictError(`VPCS ${how}: console port ${o.consolePort} is already in use`);
        throw new ConflictError(`VPCS ${how} while starting${tail ? `: ${tail}` : ''}`);
      }
      this.workers = findForkedWorkers(this.leader!);
      const worker = this.workers[0];
      const consoleReady = this.relay ? processListensOnUnix(pid, VPCS_CONSOLE_SOCKET_FILE) : processHoldsPort(pid, 'tcp', o.consolePort);
      if (consoleReady && worker && processHoldsPort(worker.pid, 'udp', o.localUdpPort)) return;
      if (Date.now() >= deadline) {
        if (consoleReady && worker) throw new ConflictError(`VPCS could not bind UDP port ${o.localUdpPort} (in use?)`);
        throw new ConflictError(`VPCS did not open console port ${o.consolePort} within ${o.startTimeoutMs ?? 5000} ms`);
      }
      await sleep(25);
    }
  }

  private checkConfined(shim: string): void {
    const unconfined = [this.leader!, ...this.workers].find((p) => !isConfined(p.pid, shim));
    if (unconfined) throw notConfined(unconfined.pid, { shim });
  }

  /** The worker ending alone leaves a parent that serves a console with no VPC behind it: end both. */
  private checkWorker(): void {
    if (!this.isRunning || this.workers.some(isSameRunningProcess)) return;
    this.exitReason = 'its forked worker ended';
    void terminateProcessTree(this.leader, [], this.options.stopGraceMs ?? DEFAULT_GRACE_MS);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = { code, signal };
    if (this.watcher) clearInterval(this.watcher);
    if (this.stopping || !this.ready) return; // stop() or start() handles the rest.
    void this.afterUnexpectedExit(this.exitReason ?? `exited (${describe(this.exited)})`);
  }

  private async afterUnexpectedExit(reason: string): Promise<void> {
    // A SIGKILLed parent orphans the worker, which keeps the UDP port: end it too.
    await terminateProcessTree(undefined, this.workers, this.options.stopGraceMs ?? DEFAULT_GRACE_MS);
    await this.options.registry?.remove(this.leader!.pid).catch(() => undefined);
    await this.closeRelay();
    const exit = this.exited!;
    this.emit('exit', { ...exit, reason, logTail: await this.logTail() } satisfies VpcsExit);
  }

  private async terminate(): Promise<void> {
    const leader = this.leader;
    if (!leader) return;
    const workers = [...this.workers, ...findForkedWorkers({ ...leader, cwd: this.options.nodeDir })];
    await terminateProcessTree(this.exited ? undefined : leader, workers, this.options.stopGraceMs ?? DEFAULT_GRACE_MS);
    if (!this.exited && this.child) await Promise.race([once(this.child, 'exit'), sleep(1000, undefined, { ref: false })]);
    await this.closeRelay();
    await this.options.registry?.remove(leader.pid);
  }

  private async closeRelay(): Promise<void> {
    const relay = this.relay;
    this.relay = undefined;
    await relay?.close();
    if (relay) await unlink(this.consoleSocketPath).catch(() => undefined);
  }

  private logTail(): Promise<string> {
    return logTail(this.logPath, this.logOffset);
  }
}

function notConfined(pid: number, confinement: VpcsProcessOptions['confinement']): ConflictError {
  const shim = (confinement !== 'unconfined' && confinement?.shim) || VPCS_CONFINE_SHIM_PATH;
  return new ConflictError(`VPCS (PID ${pid}) did not load the confinement shim ${shim}; it was stopped`);
}

function describe(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

function validate(o: VpcsProcessOptions): void {
  const port = (name: string, value: number) => {
    if (!Number.isInteger(value) || value < 1 || value > 65535) throw new InvalidError(`${name} must be a port number 1-65535, got ${value}`);
  };
  port('consolePort', o.consolePort);
  port('localUdpPort', o.localUdpPort);
  port('remoteUdpPort', o.remoteUdpPort);
  const mac = o.macByte ?? 0;
  if (!Number.isInteger(mac) || mac < 0 || mac > 255) throw new InvalidError(`macByte must be 0-255, got ${mac}`);
}
