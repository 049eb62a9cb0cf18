// API-under-traffic benchmark (issue 11): frame loss through one switch hop at a fixed offered rate
// (udpblast → switch port 0 → port 1 → udpsink) with N concurrent API clients creating, linking,
// reading and deleting VPCS nodes in a controller project of the same daemon, against the same
// offered load with no client. Both cases run in every round, in alternating order.
// Where frames are lost is read from the kernel: /proc/net/udp counts the datagrams each socket
// dropped because its receive queue was full (the daemon's ingress socket, the sink's socket).
// Usage: node dist/bench/api-under-traffic/run.js [--rate 50000] [--seconds 8] [--clients 50] [--rounds 3]
// Run it under the shared test lock: flock /tmp/emuctl-tests.lock node dist/bench/api-under-traffic/run.js
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { ApiLoad } from '../lib/api-load.js';
import { buildTools, kv, start, sleep } from '../lib/udpblast.js';
import { machineLine, ms, quantile } from '../forward/latency.js';
import { buildSwitchHop } from '../lib/switch-hop.js';
import { numberArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';

const RATE = numberArg('rate', 50_000);
const SECONDS = numberArg('seconds', 8);
const CLIENTS = numberArg('clients', 50);
const ROUNDS = numberArg('rounds', 3);
/** Outside the daemon's tunnel range and the ephemeral range (32768–60999). */
const SENDER_PORT = 62421;
const SINK_PORT = 62422;
const ENV = { EMUCTL_UDP_PORT_RANGE: '35500-35899', EMUCTL_CONSOLE_PORT_RANGE: '21900-21999' };

let daemon: TestDaemon | undefined;

/** Datagrams dropped (receive queue full) by the IPv4 UDP sockets bound to `port`, from /proc/net/udp. */
function udpDrops(port: number): number {
  let drops = 0;
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 13) continue;
    if (parseInt(f[1].split(':')[1], 16) === port) drops += Number(f[12]);
  }
  return drops;
}

/** CPU time (user + system) of a process and of each of its threads by name, in seconds. */
function cpuOf(pid: number): { total: number; threads: Map<string, number> } {
  const ticks = (stat: string) => {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  };
  const threads = new Map<string, number>();
  for (const tid of readDir(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      threads.set(name, (threads.get(name) ?? 0) + ticks(stat));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return { total: ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')), threads };
}

function readDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

interface CaseResult {
  clients: number;
  sent: number;
  received: number;
  lossPct: number;
  daemonDrops: number;
  sinkDrops: number;
  calls: number;
  p50: number;
  p99: number;
  fivexx: number;
  daemonCores: number;
  benchCores: number;
  threadCores: Map<string, number>;
  load: string;
}

async function runCase(d: TestDaemon, tools: string, inPort: number, projectId: string, clients: number, tag: string): Promise<CaseResult> {
  const load = clients ? new ApiLoad({ baseUrl: d.url, projectId, clients, tag, readsPerCycle: 2 }) : undefined;
  const loadAvg = loadavg().map((v) => v.toFixed(2)).join(' ');
  load?.start();
  await sleep(1000); // The clients reach their steady state before the first frame.
  const dropsBefore = { daemon: udpDrops(inPort), sink: udpDrops(SINK_PORT) };
  const sink = start(`${tools}/udpsink`, ['-p', String(SINK_PORT), '-i', '1000', '-x', '-w', '30'], 60_000 + SECONDS * 1000);
  await sleep(200); // The sink binds before the first frame.
  load?.takeWindow();
  const cpu0 = cpuOf(d.pid);
  const bench0 = process.cpuUsage();
  const t0 = Date.now();
  const sent = kv(await start(`${tools}/udpblast`, ['-t', `127.0.0.1:${inPort}`, '-b', String(SENDER_PORT), '-s', '64', '-r', String(RATE), '-d', String(SECONDS), '-q'], 60_000 + SECONDS * 1000).done);
  const wall = (Date.now() - t0) / 1000;
  const cpu1 = cpuOf(d.pid);
  const bench1 = process.cpuUsage(bench0);
  const calls = load?.takeWindow() ?? [];
  await load?.stop();
  const received = kv(await sink.done);
  const threadCores = new Map<string, number>();
  for (const [name, t] of cpu1.threads) threadCores.set(name, (t - (cpu0.threads.get(name) ?? 0)) / wall);
  const lat = calls.map((c) => c.ms);
  return {
    clients,
    sent: sent.sent,
    received: received.uniq ?? 0,
    lossPct: sent.sent ? (100 * (sent.sent - (received.uniq ?? 0))) / sent.sent : NaN,
    daemonDrops: udpDrops(inPort) - dropsBefore.daemon,
    sinkDrops: udpDrops(SINK_PORT) - dropsBefore.sink,
    calls: calls.length,
    p50: lat.length ? quantile(lat, 0.5) : NaN,
    p99: lat.length ? quantile(lat, 0.99) : NaN,
    fivexx: calls.filter((c) => c.status >= 500 || c.status === 0).length,
    daemonCores: (cpu1.total - cpu0.total) / wall,
    benchCores: (bench1.user + bench1.system) / 1e6 / wall,
    threadCores,
    load: loadAvg,
  };
}

async function main(): Promise<void> {
  const tools = buildTools();
  daemon = await startTestDaemon({ env: ENV });
  const d = daemon;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await d.api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
    return r.body;
  };
  // The hop: a switch built through the compute API, port 0 ← udpblast, port 1 → udpsink.
  const { inPort } = await buildSwitchHop(api, 'traffic-hop', SENDER_PORT, SINK_PORT);
  // The clients' project, on the controller of the same daemon.
  const projectId = (await api('POST', '/v2/projects', { name: 'api-clients' })).project_id as string;

  const rounds: CaseResult[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, CLIENTS] : [CLIENTS, 0];
    const results: CaseResult[] = [];
    for (const clients of order) results.push(await runCase(d, tools, inPort, projectId, clients, `r${round}c${clients}-`));
    rounds.push(results.sort((a, b) => a.clients - b.clients));
  }
  report(rounds);
}

function report(rounds: CaseResult[][]): void {
  const pct = (v: number) => `${v.toFixed(2)}%`;
  const mr = (values: number[], f: (v: number) => string) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${f(quantile(sorted, 0.5))} (${f(sorted[0])}–${f(sorted[sorted.length - 1])})`;
  };
  console.log(`\nAPI under traffic: ${RATE.toLocaleString('en')} 64-byte frames/s offered for ${SECONDS} s through one switch hop, with ${CLIENTS} API clients (create 2 VPCS nodes, link, 2 reads, delete; keep-alive, back to back) and with none; ${ROUNDS} rounds, cases alternating; ${machineLine()}\n`);
  console.log('| round | clients | load avg at start | frames sent | received | loss | dropped at the daemon\'s ingress socket | dropped at the sink | API calls | p50 ms | p99 ms | 5xx | daemon cores | bench-process cores |');
  console.log('|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  rounds.forEach((results, i) => {
    for (const r of results) {
      console.log(`| ${i + 1} | ${r.clients} | ${r.load} | ${r.sent} | ${r.received} | ${pct(r.lossPct)} | ${r.daemonDrops} | ${r.sinkDrops} | ${r.calls || '–'} | ${r.calls ? ms(r.p50) : '–'} | ${r.calls ? ms(r.p99) : '–'} | ${r.calls ? r.fivexx : '–'} | ${r.daemonCores.toFixed(2)} | ${r.benchCores.toFixed(2)} |`);
    }
  });
  const of = (clients: number) => rounds.map((rs) => rs.find((r) => r.clients === clients)!);
  const alone = of(0);
  const busy = of(CLIENTS);
  console.log(`\n| case | loss, median (range) | daemon cores | API p50 ms | API p99 ms |`);
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| no client | ${mr(alone.map((r) => r.lossPct), pct)} | ${mr(alone.map((r) => r.daemonCores), (v) => v.toFixed(2))} | – | – |`);
  console.log(`| ${CLIENTS} clients | ${mr(busy.map((r) => r.lossPct), pct)} | ${mr(busy.map((r) => r.daemonCores), (v) => v.toFixed(2))} | ${mr(busy.map((r) => r.p50), ms)} | ${mr(busy.map((r) => r.p99), ms)} |`);
  const names = [...new Set(busy.flatMap((r) => [...r.threadCores.keys()]))]
    .map((name) => ({ name, busy: quantile(busy.map((r) => r.threadCores.get(name) ?? 0), 0.5), alone: quantile(alone.map((r) => r.threadCores.get(name) ?? 0), 0.5) }))
    .filter((t) => t.busy >= 0.01 || t.alone >= 0.01)
    .sort((a, b) => b.busy - a.busy);
  console.log(`\nDaemon threads (cores, median over rounds; threads of one name summed): ${names.map((t) => `${t.name} ${t.alone.toFixed(2)} → ${t.busy.toFixed(2)}`).join('; ')}`);
}

async function stopAll(): Promise<void> {
  if (daemon) {
    const d = daemon;
    daemon = undefined;
    await d.stop();
    removeHome(d.home);
  }
}

await runBench('the API-under-traffic bench', 60_000 + ROUNDS * 2 * (SECONDS + 40) * 1000, main, stopAll);
