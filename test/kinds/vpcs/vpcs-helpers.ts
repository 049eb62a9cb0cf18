import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { socketInodesOf } from '../../../src/daemon/compute/process/proc-sockets.js';
import { VpcsProcess, type VpcsProcessOptions } from '../../../src/daemon/kinds/vpcs/vpcs-process.js';
import { childrenOf, isRunning, listProcesses, readCmdline, readCwd, readProcStat } from '../../../src/util/proc-info.js';

/** `count` distinct UDP ports the kernel handed out on 0.0.0.0 (all held until the last is chosen, then freed). */
export async function freeUdpPorts(count: number): Promise<number[]> {
  const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<Socket>((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '0.0.0.0', () => resolve(socket));
  })));
  const ports = sockets.map((s) => s.address().port);
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

/** `count` distinct TCP ports the kernel handed out on 0.0.0.0 (all held until the last is chosen, then freed). */
export async function freeTcpPorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => resolve(server));
  })));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

/** True when a UDP socket can bind `port` on 0.0.0.0 now. */
export function canBindUdp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, '0.0.0.0', () => socket.close(() => resolve(true)));
  });
}

/** True when a TCP listener can bind `port` on 0.0.0.0 now. */
export function canBindTcp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** A fresh temporary directory, removed by `cleanup()`. */
export function tempDir(prefix = 'emuctl-vpcs-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Polls `condition` every 25 ms until it holds; false after `timeoutMs`. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(25);
  }
  return condition();
}

/**
 * Remembers every VPCS PID a test started (parents and workers) and SIGKILLs those still running, by
 * PID and only if the PID still runs vpcs, so a failing test never leaves a process behind.
 */
export class PidJanitor {
  private readonly pids = new Set<number>();

  /** Tracks a VPCS parent and its current children (the forked worker). */
  track(pid: number | undefined): void {
    if (!pid) return;
    this.pids.add(pid);
    for (const child of childrenOf(pid)) this.pids.add(child.pid);
  }

  killAll(): void {
    for (const pid of this.pids) {
      const argv = readCmdline(pid) ?? [];
      if (isRunning(pid) && argv.some((a) => a.endsWith('vpcs'))) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    this.pids.clear();
  }
}

/** `ps -o pid,ppid,sid,pgid`-like view of a process, from /proc. */
export function psLine(pid: number): { pid: number; ppid: number; sid: number; pgid: number; state: string } | undefined {
  const stat = readProcStat(pid);
  return stat && { pid, ppid: stat.ppid, sid: stat.session, pgid: stat.pgrp, state: stat.state };
}

/** Running processes started in `dir` (a node directory). */
export function processesIn(dir: string): number[] {
  return listProcesses().filter((p) => isRunning(p.pid) && readCwd(p.pid) === dir).map((p) => p.pid);
}

/** The IPv4 sockets (listening, for TCP) in /proc/net/{tcp,udp}: `address:port` and inode. */
export function ipv4Sockets(protocol: 'tcp' | 'udp'): { local: string; port: number; inode: string }[] {
  const out: { local: string; port: number; inode: string }[] = [];
  for (const line of readFileSync(`/proc/net/${protocol}`, 'utf8').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || (protocol === 'tcp' && cols[3] !== '0A')) continue;
    const [hex, portHex] = cols[1].split(':');
    const address = [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
    const port = parseInt(portHex, 16);
    out.push({ local: `${address}:${port}`, port, inode: cols[9] });
  }
  return out;
}

/** `address:port` of every IPv4 socket (listening, for TCP) process `pid` holds, sorted. */
export function boundAddresses(pid: number, protocol: 'tcp' | 'udp'): string[] {
  const own = socketInodesOf(pid);
  return ipv4Sockets(protocol).filter((s) => own.has(s.inode)).map((s) => s.local).sort();
}

/** Starts VPCS processes on free ports in numbered node directories under `dir`, each tracked by `janitor`. */
export class VpcsStarter {
  private readonly started: VpcsProcess[] = [];
  private n = 0;

  constructor(private readonly dir: string, private readonly janitor: PidJanitor) {}

  async start(extra: Partial<VpcsProcessOptions> = {}): Promise<VpcsProcess> {
    const [[consolePort], [localUdpPort, remoteUdpPort]] = [await freeTcpPorts(1), await freeUdpPorts(2)];
    const vpcs = new VpcsProcess({ nodeDir: join(this.dir, `node${++this.n}`), consolePort, localUdpPort, remoteUdpPort, ...extra });
    this.started.push(vpcs);
    await vpcs.start();
    this.janitor.track(vpcs.pid);
    return vpcs;
  }

  /** Stops every VPCS started so far. */
  async stopAll(): Promise<void> {
    await Promise.allSettled(this.started.splice(0).map((v) => v.stop()));
  }
}
