// Soak benchmark (issue 11): a 6-node lab (two switches, four real VPCS) carries traffic for a long
// run while its inter-switch link is captured and API clients create and delete nodes and links in
// the same project. Reports the daemon's RSS and open fds over time (growth as a ratio of the start,
// taken after a warm-up), frames lost, API p50/p99 and the count of 5xx answers.
// Traffic: PC1→PC3 and PC2→PC4 ping through both switches (VPCS `ping`, 10 per second each), and a
// udpping pair (../shared/tools/udpblast) bounces frames SW1 port 5 → SW2 port 5 and back, one at a time.
// Memory: RSS, fds and threads from /proc every --sample seconds; the daemon's own memory log
// (EMUCTL_MEMORY_LOG_SECONDS) splits RSS into the V8 heaps (live after a full GC, committed) and the rest.
// Usage: node dist/bench/soak/run.js [--minutes 10] [--warmup 180] [--sample 5] [--window 60] [--clients 4]
//   [--ping-gap-us 1000] [--memory-log 5] [--malloc-arena-max N] [--daemon-log FILE]
// Run it under the shared test lock: flock /tmp/emuctl-tests.lock node dist/bench/soak/run.js
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { ApiLoad, timedCall, type CallSample } from '../lib/api-load.js';
import { buildTools, kv, start, stop, sleep, type Running } from '../lib/udpblast.js';
import { machineLine, ms, quantile } from '../forward/latency.js';
import { numberArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';

const MINUTES = numberArg('minutes', 10);
const WARMUP_S = numberArg('warmup', 180);
const SAMPLE_S = numberArg('sample', 5);
/** RSS growth compares the median of the first and of the last window of this many seconds after the warm-up. */
const WINDOW_S = numberArg('window', 60);
const CLIENTS = numberArg('clients', 4);
const PING_GAP_US = numberArg('ping-gap-us', 1000);
/** Outside the daemon's tunnel range and the ephemeral range (32768–60999). */
const UDPPING_CLIENT = 62411;
const UDPPING_ECHO = 62412;
const MEMORY_LOG_S = numberArg('memory-log', 5);
const MALLOC_ARENA_MAX = process.argv.includes('--malloc-arena-max') ? String(numberArg('malloc-arena-max', 0)) : undefined;
const DAEMON_LOG = (() => { const i = process.argv.indexOf('--daemon-log'); return i > 0 ? process.argv[i + 1] : undefined; })();
const ENV = {
  EMUCTL_UDP_PORT_RANGE: '35000-35399',
  EMUCTL_CONSOLE_PORT_RANGE: '21400-21499',
  EMUCTL_MEMORY_LOG_SECONDS: String(MEMORY_LOG_S),
  ...(MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX } : {}),
};

let daemon: TestDaemon | undefined;
const background: Running[] = [];
const consoles: VpcsConsole[] = [];

interface Sample {
  t: number;
  rssKb: number;
  fds: number;
  threads: number;
  calls: CallSample[];
}

/** One line of the daemon's memory log: seconds since the soak began, figures in MB by key. */
interface MemoryLine {
  t: number;
  mb: Record<string, number>;
}

function memoryLines(log: string, began: number): MemoryLine[] {
  const out: MemoryLine[] = [];
  for (const m of log.matchAll(/^(\S+) INFO  memory (.*)$/gm)) {
    const mb = Object.fromEntries([...m[2].matchAll(/(\w+)=([\d.]+)(?=\s|$)/g)].map((f) => [f[1], Number(f[2])]));
    out.push({ t: (Date.parse(m[1]) - began) / 1000, mb });
  }
  return out;
}

function procFigures(pid: number): { rssKb: number; fds: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), fds: readdirSync(`/proc/${pid}/fd`).length, threads: field('Threads') };
}

async function main(): Promise<void> {
  const tools = buildTools();
  daemon = await startTestDaemon({ env: ENV });
  const d = daemon;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await timedCall(agent, `${d.url}${path}`, method, body ?? (method === 'POST' ? {} : undefined));
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
    return r.body;
  };

  const projectId = (await api('POST', '/v2/projects', { name: 'soak' })).project_id as string;
  const p = `/v2/projects/${projectId}`;
  const node = (name: string, node_type: string) => api('POST', `${p}/nodes`, { name, node_type });
  const link = (a: [string, number], b: [string, number]) => api('POST', `${p}/links`, {
    nodes: [a, b].map(([node_id, port_number]) => ({ node_id, adapter_number: 0, port_number })),
  });
  const sw1 = await node('SW1', 'ethernet_switch');
  const sw2 = await node('SW2', 'ethernet_switch');
  const pcs = [];
  for (let i = 1; i <= 4; i++) pcs.push(await node(`PC${i}`, 'vpcs'));
  await link([pcs[0].node_id, 0], [sw1.node_id, 0]);
  await link([pcs[1].node_id, 0], [sw1.node_id, 1]);
  await link([pcs[2].node_id, 0], [sw2.node_id, 0]);
  await link([pcs[3].node_id, 0], [sw2.node_id, 1]);
  const trunk = await link([sw1.node_id, 7], [sw2.node_id, 7]);
  const capture = await api('POST', `${p}/links/${trunk.link_id}/start_capture`, {});
  const captureFile = capture.capture_file_path as string;

  // The udpping pair is wired to port 5 of each switch through the compute API (as a cloud would be).
  const compute = `/v2/compute/projects/${projectId}`;
  const attach = async (sw: any, peer: number) => {
    const lport = (await api('POST', `${compute}/ports/udp`, {})).udp_port as number;
    await api('POST', `${compute}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/5/nio`, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: peer });
    return lport;
  };
  const entry = await attach(sw1, UDPPING_CLIENT);
  await attach(sw2, UDPPING_ECHO);

  for (const pc of pcs) await api('POST', `${p}/nodes/${pc.node_id}/start`, {});
  for (const [i, pc] of pcs.entries()) {
    const c = await connectVpcsConsole('127.0.0.1', pc.console);
    consoles.push(c);
    await setIp(c, `10.0.0.${i + 1}/24`);
  }

  const began = Date.now();
  const endAt = began + (WARMUP_S + MINUTES * 60) * 1000;
  const warm = () => Date.now() >= began + WARMUP_S * 1000;
  const running = () => Date.now() < endAt;

  const pings = { sent: 0, received: 0 };
  const pingLoop = async (from: VpcsConsole, to: string) => {
    while (running()) {
      const r = await ping(from, to, 10, { intervalMs: 100, waitMs: 500 });
      if (warm()) {
        pings.sent += 10;
        pings.received += r.received;
      }
    }
  };
  const udp = { n: 0, lost: 0, stray: 0, p50: [] as number[], p99: [] as number[] };
  const echo = start(`${tools}/udpping`, ['-e', '-b', String(UDPPING_ECHO)], (WARMUP_S + MINUTES * 60 + 300) * 1000);
  background.push(echo);
  await sleep(200); // The echo side binds before the first frame.
  const udppingLoop = async () => {
    while (running()) {
      const out = kv(await start(`${tools}/udpping`, ['-t', `127.0.0.1:${entry}`, '-b', String(UDPPING_CLIENT), '-n', '5000', '-g', String(PING_GAP_US), '-W', '0'], 120_000).done);
      if (!warm()) continue;
      udp.n += out.n;
      udp.lost += out.lost;
      udp.stray += out.stray;
      udp.p50.push(out.rtt_p50_us);
      udp.p99.push(out.rtt_p99_us);
    }
  };

  const load = new ApiLoad({ baseUrl: d.url, projectId, clients: CLIENTS, tag: 'soak' });
  const traffic = Promise.all([pingLoop(consoles[0], '10.0.0.3'), pingLoop(consoles[1], '10.0.0.4'), udppingLoop()]);
  load.start();

  const samples: Sample[] = [];
  const quiet = async () => {
    await load.pause();
    await sleep(1000);
    const figures = procFigures(d.pid);
    load.resume();
    return figures;
  };
  let startFigures: ReturnType<typeof procFigures> | undefined;
  let startIndex = 0;
  let warmCalls: CallSample[] = [];
  while (running()) {
    await sleep(Math.min(SAMPLE_S * 1000, Math.max(0, endAt - Date.now())));
    if (!startFigures && warm()) {
      startFigures = await quiet();
      load.takeWindow();
      startIndex = samples.length;
      samples.push({ t: (Date.now() - began) / 1000, ...startFigures, calls: [] });
      continue;
    }
    const calls = load.takeWindow();
    if (startFigures) warmCalls = warmCalls.concat(calls);
    samples.push({ t: (Date.now() - began) / 1000, ...procFigures(d.pid), calls });
  }
  await traffic;
  const endFigures = await quiet();
  await load.stop();
  const captureBytes = statSync(captureFile).size;
  if (DAEMON_LOG) writeFileSync(DAEMON_LOG, d.log());
  await api('POST', `${p}/links/${trunk.link_id}/stop_capture`, {});
  agent.destroy();

  report({ samples, memory: memoryLines(d.log(), began), startIndex, startFigures: startFigures!, endFigures, warmCalls, load, pings, udp, captureBytes });
}

function report(r: {
  samples: Sample[];
  memory: MemoryLine[];
  startIndex: number;
  startFigures: ReturnType<typeof procFigures>;
  endFigures: ReturnType<typeof procFigures>;
  warmCalls: CallSample[];
  load: ApiLoad;
  pings: { sent: number; received: number };
  udp: { n: number; lost: number; stray: number; p50: number[]; p99: number[] };
  captureBytes: number;
}): void {
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
  const ratio = (a: number, b: number) => (a / b).toFixed(3);
  const s0 = r.startFigures;
  const warmT = r.samples[r.startIndex].t;
  const endT = r.samples[r.samples.length - 1].t;
  const heapsLive = (m: MemoryLine) => (m.mb.main_after_gc ?? NaN) + (m.mb.worker_after_gc ?? NaN);
  const heapsCommitted = (m: MemoryLine) => m.mb.main_total + (m.mb.worker_total ?? 0);
  const medianOf = <T>(xs: T[], f: (x: T) => number) => median(xs.map(f).filter(Number.isFinite));
  console.log(`\nSoak: ${MINUTES} min after a ${WARMUP_S} s warm-up; ${CLIENTS} API clients creating/linking/deleting VPCS nodes; VPCS pings PC1→PC3, PC2→PC4 (10/s each); udpping through SW1→SW2 with a ${PING_GAP_US} µs gap; capture on the SW1–SW2 link; RSS sampled every ${SAMPLE_S} s, daemon memory log every ${MEMORY_LOG_S} s${MALLOC_ARENA_MAX ? `; MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX}` : ''}; ${machineLine()}\n`);
  console.log('RSS columns: median, min and max of the samples of that minute. Heaps (MB): live = used right after the latest full GC; committed = V8 heap size; outside = RSS less both heaps (code, malloc, stacks).\n');
  console.log('| t (s) | RSS median | min | max | × start | live main | live worker | committed heaps | outside heaps | fds | threads | API calls | p50 ms | p99 ms | 5xx |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const firstWindow = r.samples.filter((s) => s.t > warmT && s.t <= warmT + WINDOW_S);
  const startMedian = median(firstWindow.map((s) => s.rssKb));
  const every = Math.max(1, Math.round(60 / SAMPLE_S));
  let pending: CallSample[] = [];
  let rows: Sample[] = [];
  let from = -Infinity;
  r.samples.forEach((s, i) => {
    pending = pending.concat(s.calls);
    rows.push(s);
    const last = i === r.samples.length - 1;
    if (i !== r.startIndex && (i - r.startIndex) % every !== 0 && !last) return;
    const rss = rows.map((x) => x.rssKb);
    const mem = r.memory.filter((m) => m.t > from && m.t <= s.t);
    const lat = pending.map((c) => c.ms);
    const fivexx = pending.filter((c) => c.status >= 500 || c.status === 0).length;
    console.log(`| ${s.t.toFixed(0)}${i === r.startIndex ? ' (warm-up ends)' : ''} | ${mb(median(rss))} | ${mb(Math.min(...rss))} | ${mb(Math.max(...rss))} | ${i > r.startIndex ? ratio(median(rss), startMedian) : '–'} | ${f1(medianOf(mem, (m) => m.mb.main_after_gc))} | ${f1(medianOf(mem, (m) => m.mb.worker_after_gc))} | ${f1(medianOf(mem, heapsCommitted))} | ${f1(medianOf(mem, (m) => m.mb.outside_heaps))} | ${s.fds} | ${s.threads} | ${pending.length} | ${lat.length ? ms(quantile(lat, 0.5)) : '–'} | ${lat.length ? ms(quantile(lat, 0.99)) : '–'} | ${fivexx} |`);
    pending = [];
    rows = [];
    from = s.t;
  });

  // Growth: the first window after the warm-up against the last window of the run. A window spans
  // several GC cycles of the main thread (its heap swings by some 30 MB between full GCs under this
  // load), so its median is the level RSS holds, not the phase of one GC.
  const lastWindow = r.samples.filter((s) => s.t > endT - WINDOW_S);
  const endMedian = median(lastWindow.map((s) => s.rssKb));
  const memFirst = r.memory.filter((m) => m.t > warmT && m.t <= warmT + WINDOW_S);
  const memLast = r.memory.filter((m) => m.t > endT - WINDOW_S && m.t <= endT);
  const grows = (what: string, f: (m: MemoryLine) => number) => {
    const a = medianOf(memFirst, f);
    const b = medianOf(memLast, f);
    return `| ${what}, median first → last window | ${f1(a)} → ${f1(b)} MB (${b - a >= 0 ? '+' : ''}${f1(b - a)} MB, × ${ratio(b, a)}) | – |`;
  };
  const rssGrowth = endMedian / startMedian;
  const after = r.samples.slice(r.startIndex);
  const maxRss = Math.max(...after.map((s) => s.rssKb));
  const lat = r.warmCalls.map((c) => c.ms);
  const fivexx = r.load.all.filter((c) => c.status >= 500).length;
  const failed = r.load.all.filter((c) => c.status === 0).length;
  const fdGrowth = r.endFigures.fds - s0.fds;
  console.log('\n| figure | value | target |');
  console.log('|---|---|---|');
  console.log(`| RSS growth: median of the ${firstWindow.length} samples of the first ${WINDOW_S} s after the warm-up (t ${warmT.toFixed(0)}–${(warmT + WINDOW_S).toFixed(0)} s) → median of the ${lastWindow.length} samples of the last ${WINDOW_S} s | ${mb(startMedian)} → ${mb(endMedian)} MB (× ${ratio(endMedian, startMedian)}) | growth < 10%: ${rssGrowth < 1.1 ? 'met' : 'NOT met'} |`);
  console.log(`| RSS, same windows: min → min; max → max; max after warm-up | ${mb(Math.min(...firstWindow.map((s) => s.rssKb)))} → ${mb(Math.min(...lastWindow.map((s) => s.rssKb)))} MB (× ${ratio(Math.min(...lastWindow.map((s) => s.rssKb)), Math.min(...firstWindow.map((s) => s.rssKb)))}); ${mb(Math.max(...firstWindow.map((s) => s.rssKb)))} → ${mb(Math.max(...lastWindow.map((s) => s.rssKb)))} MB; ${mb(maxRss)} MB | – |`);
  console.log(`| RSS, quiet single samples (clients paused 1 s) at warm-up end → run end | ${mb(s0.rssKb)} → ${mb(r.endFigures.rssKb)} MB (× ${ratio(r.endFigures.rssKb, s0.rssKb)}) | – |`);
  console.log(grows('live V8 heaps (main + worker, used after the latest full GC)', heapsLive));
  console.log(grows('committed V8 heaps (main + worker)', heapsCommitted));
  console.log(grows('RSS outside the V8 heaps (code, malloc arenas, stacks)', (m) => m.mb.outside_heaps));
  console.log(`| open fds, quiet start → quiet end | ${s0.fds} → ${r.endFigures.fds} (max ${Math.max(...after.map((s) => s.fds))}) | 0 growth: ${fdGrowth <= 0 ? 'met' : 'NOT met'} |`);
  console.log(`| API calls after warm-up (p50 / p99) | ${lat.length} (${ms(quantile(lat, 0.5))} / ${ms(quantile(lat, 0.99))} ms); ${r.load.cycles} create/link/delete cycles in all | – |`);
  console.log(`| 5xx answers (whole run) | ${fivexx}; failed connections ${failed}; other unexpected answers ${r.load.unexpectedCount - fivexx - failed} | 0: ${fivexx === 0 ? 'met' : 'NOT met'} |`);
  console.log(`| udpping frames through both switches after warm-up | ${r.udp.n * 2} answered, ${r.udp.lost} pings lost (${(100 * r.udp.lost / Math.max(1, r.udp.n + r.udp.lost)).toFixed(3)}%), ${r.udp.stray} late; RTT p50 ${median(r.udp.p50).toFixed(1)} µs, p99 ${median(r.udp.p99).toFixed(1)} µs (median of ${r.udp.p50.length} runs) | – |`);
  console.log(`| VPCS pings after warm-up | ${r.pings.received} / ${r.pings.sent} answered (${r.pings.sent - r.pings.received} lost) | – |`);
  console.log(`| capture file | ${(r.captureBytes / 1e6).toFixed(1)} MB | – |`);
  if (r.load.unexpected.length) console.log(`\nUnexpected answers (first ${r.load.unexpected.length}):\n${r.load.unexpected.map((u) => `- ${u}`).join('\n')}`);
}

function median(values: number[]): number {
  return values.length ? quantile(values, 0.5) : NaN;
}

async function stopAll(): Promise<void> {
  for (const c of consoles.splice(0)) c.close();
  for (const r of background.splice(0)) await stop(r);
  if (daemon) {
    const d = daemon;
    daemon = undefined;
    await d.stop();
    removeHome(d.home);
  }
}

await runBench('the soak bench', (WARMUP_S + MINUTES * 60 + 180) * 1000, main, stopAll);
