// Things a frame can cross on its way from udpblast to udpsink: the emuctl dataplane,
// the C relay, the naive Node relay, or nothing (direct). Each owns a block of 4 ports:
// S (the sender binds it), A (the hop's port facing S), B (the hop's port facing K),
// K (the sink or echo binds it). The hop's A is connected to S and B to K, as GNS3 NIOs are.
import dgram from 'node:dgram';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HostConfig, HostNode } from './dataplane-host.js';
import type { LinkFilters } from '../../src/daemon/dataplane/types.js';
import { freePortBlock, kv, run, sleep, start, stop, type Running } from './udpblast.js';

export interface Ports {
  S: number;
  A: number;
  B: number;
  K: number;
}

export interface Target {
  name: string;
  ports: Ports;
  /** Where the sender aims: the hop's A port (or K when there is no hop). */
  entry: number;
  /** The hop's process, whose CPU time is charged to the frames it forwards. */
  pid?: number;
  stop(): Promise<void>;
  /** The dataplane host's command channel, for stats and probes. */
  command?(cmd: string, prefix: string): Promise<string>;
}

async function block(): Promise<Ports> {
  const S = await freePortBlock(4);
  return { S, A: S + 1, B: S + 2, K: S + 3 };
}

/** Waits for a child's "ready" line (which may say more after a space). */
export async function ready(child: ChildProcess, what: string): Promise<void> {
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  try {
    for await (const line of lines) if (line.trim().split(' ')[0] === 'ready') return;
    throw new Error(`${what} exited before it was ready`);
  } finally {
    clearTimeout(timer);
  }
}

/** No hop: the sender talks to the sink directly. */
export async function direct(): Promise<Target> {
  const ports = await block();
  return { name: 'direct', ports, entry: ports.K, stop: async () => undefined };
}

/** udprelay in its event-loop mode (poll + recv/send per datagram): the C baseline. */
export async function cRelay(tools: string): Promise<Target> {
  const ports = await block();
  const r: Running = start(`${tools}/udprelay`, ['-a', `${ports.A}:${ports.S}`, '-b', `${ports.B}:${ports.K}`, '-m', 'plain'], 600_000);
  await sleep(200);
  return { name: 'C relay (udprelay plain)', ports, entry: ports.A, pid: r.child.pid, stop: async () => void (await stop(r)) };
}

/** A naive Node relay (unconnected sends, default buffers) in its own process. */
export async function nodeRelay(): Promise<Target> {
  const ports = await block();
  const script = fileURLToPath(new URL('./naive-relay.js', import.meta.url));
  const child = spawn(process.execPath, [script, ...[ports.A, ports.S, ports.B, ports.K].map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await ready(child, 'naive relay');
  return { name: 'naive Node relay', ports, entry: ports.A, pid: child.pid, stop: () => kill(child) };
}

export interface EmuctlOptions {
  kind?: HostNode['kind'];
  /** js, native or auto. */
  engine?: string;
  filters?: LinkFilters;
  /** A capture on port 0 into this file. */
  capturePath?: string;
}

/** The emuctl dataplane (a 2-port switch or hub, optional filters and capture on port 0) in its own process. */
export async function emuctl(name: string, opts: EmuctlOptions = {}): Promise<Target> {
  return (await emuctlHops([name], opts))[0];
}

/** Independent 2-port nodes in one dataplane process, one hop each (they share the process's CPU figure). */
export async function emuctlHops(names: string[], opts: EmuctlOptions = {}): Promise<Target[]> {
  const blocks: Ports[] = [];
  for (let i = 0; i < names.length; i++) blocks.push(await block());
  const kind = opts.kind ?? 'switch';
  const config: HostConfig = {
    engine: opts.engine,
    nodes: blocks.map((ports) => ({
      kind,
      ports: [{ port: 0, lport: ports.A, rport: ports.S, filters: opts.filters }, { port: 1, lport: ports.B, rport: ports.K }],
      capture: opts.capturePath ? { port: 0, path: opts.capturePath } : undefined,
    })),
  };
  const script = fileURLToPath(new URL('./dataplane-host.js', import.meta.url));
  const child = spawn(process.execPath, [script, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'inherit'] });
  await ready(child, 'dataplane host');
  if (kind === 'switch') for (const ports of blocks) await teachSinkMac(ports);
  const lines = createInterface({ input: child.stdout! });
  const command = async (cmd: string, prefix: string) => {
    const answer = new Promise<string>((res) => {
      const onLine = (l: string) => {
        if (!l.startsWith(prefix)) return;
        lines.off('line', onLine);
        res(l);
      };
      lines.on('line', onLine);
    });
    child.stdin!.write(`${cmd}\n`);
    return answer;
  };
  let stopped: Promise<void> | null = null;
  return names.map((name, i) => ({
    name, ports: blocks[i], entry: blocks[i].A, pid: child.pid, command,
    stop: () => (stopped ??= kill(child)),
  }));
}

/** One frame from the sink's port with udpblast's destination MAC, so the switch forwards by its MAC table, not by flooding. */
async function teachSinkMac(ports: Ports): Promise<void> {
  const s = dgram.createSocket('udp4');
  s.bind(ports.K, '127.0.0.1');
  await once(s, 'listening');
  const frame = Buffer.alloc(64);
  Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x02, 0x88, 0xb5]).copy(frame);
  s.send(frame, ports.B, '127.0.0.1');
  await sleep(50);
  s.close();
}

export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

export interface FlowResult {
  sent: number;
  rx: number;
  /** Forwarded frames/s as the sink saw them (first to last arrival). */
  pps: number;
  lossPct: number;
  latP50: number;
  latP99: number;
  /** CPU time (user + system, all threads) the hop's process spent per frame received, in µs. */
  cpuUsPerFrame: number;
}

/** User + system CPU seconds a process has used so far (all its threads). */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    // Fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux); the command name may contain spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

/** udpblast → target → udpsink for `seconds` (unthrottled, or at `rate` frames/s). */
export async function flow(tools: string, t: Target, size: number, seconds: number, rate = 0): Promise<FlowResult> {
  const sink = start(`${tools}/udpsink`, ['-p', String(t.ports.K), '-x', '-i', '700', '-w', '20'], (seconds + 30) * 1000);
  await sleep(150);
  const blastArgs = ['-t', `127.0.0.1:${t.entry}`, '-b', String(t.ports.S), '-s', String(size), '-d', String(seconds)];
  if (rate) blastArgs.push('-r', String(rate));
  const cpu0 = cpuSeconds(t.pid);
  const blast = kv(await run(`${tools}/udpblast`, blastArgs, (seconds + 10) * 1000));
  const s = kv(await sink.done);
  const cpu = cpuSeconds(t.pid) - cpu0;
  const sent = blast.sent ?? 0;
  const rx = s.uniq ?? 0;
  return {
    sent, rx, pps: s.pps ?? 0, lossPct: sent ? (100 * (sent - rx)) / sent : 100,
    latP50: s.lat_p50_us ?? NaN, latP99: s.lat_p99_us ?? NaN, cpuUsPerFrame: rx ? (cpu * 1e6) / rx : NaN,
  };
}

export interface PingResult {
  n: number;
  lost: number;
  p50: number;
  p99: number;
}

/** udpping → target → echo: round-trip times (µs) of `n` back-to-back 64-byte pings. */
export async function ping(tools: string, t: Target, n: number): Promise<PingResult> {
  const echo = start(`${tools}/udpping`, ['-e', '-b', String(t.ports.K)], 600_000);
  await sleep(150);
  const r = kv(await run(`${tools}/udpping`, ['-t', `127.0.0.1:${t.entry}`, '-b', String(t.ports.S), '-n', String(n), '-s', '64'], 120_000));
  await stop(echo);
  return { n: r.n ?? 0, lost: r.lost ?? n, p50: r.rtt_p50_us ?? NaN, p99: r.rtt_p99_us ?? NaN };
}
