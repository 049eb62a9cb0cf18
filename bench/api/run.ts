// API-under-load benchmark (issue 3): GET /v2/version p50/p99 on an idle daemon, then while udpblast
// offers a fixed frame rate through one switch hop (port 0 → port 1 → udpsink), all in one run.
// The frames go through the real daemon's dataplane worker; the calls go to its HTTP thread.
// Needs gcc (the C load tools are built out of tree from ../shared/tools/udpblast).
// Both samples span the same window: back-to-back calls for (seconds - 2) s.
// Usage: npx tsc -p tsconfig.json && node dist/bench/api/run.js [--rates 50000,100000] [--seconds 10]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestDaemon, removeHome, type TestDaemon } from '../../test/helpers/daemon.js';
import { keepAliveAgent, machineLine, ms, summarize, timedGet, type LatencySummary } from '../forward/latency.js';
import { buildSwitchHop } from '../lib/switch-hop.js';
import { numberArg, stringArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';

const WARMUP = 200;
const RATES = stringArg('rates', '50000').split(',').map(Number);
const BLAST_SECONDS = numberArg('seconds', 10);
/** Frames start flowing this long before the calls, so the switch runs at its steady state. */
const SETTLE_MS = 1000;
/** Outside the daemon's tunnel range and outside the ephemeral range (32768–60999). */
const SENDER_PORT = 62401;
const SINK_PORT = 62402;
const UDPBLAST_SRC = process.env.UDPBLAST_DIR ?? fileURLToPath(new URL('../../../../shared/tools/udpblast', import.meta.url));
const TOOLS = join(tmpdir(), 'udpblast-build');

let daemon: TestDaemon | undefined;
const children = new Set<ChildProcess>();

async function stopAll(): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  children.clear();
  if (daemon) {
    const d = daemon;
    daemon = undefined;
    const timer = setTimeout(() => d.child.kill('SIGKILL'), 10_000);
    await d.stop();
    clearTimeout(timer);
    removeHome(d.home);
  }
}

/** Runs one of the C tools; resolves with its key=value summary line parsed. */
function runTool(tool: string, args: string[]): { done: Promise<Record<string, string>>; child: ChildProcess } {
  const child = spawn(join(TOOLS, tool), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const done = new Promise<Record<string, string>>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      children.delete(child);
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.includes('=')) reject(new Error(`${tool} ${args.join(' ')} exited ${code}: ${err || out}`));
      else resolve(Object.fromEntries(line.split(/\s+/).filter((kv) => kv.includes('=')).map((kv) => kv.split('=') as [string, string])));
    });
  });
  return { done, child };
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await daemon!.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
  return r.body;
}

/** Calls GET /v2/version back to back until `until()` says stop. */
async function sampleVersion(until: () => boolean): Promise<number[]> {
  const agent = keepAliveAgent();
  const url = `${daemon!.url}/v2/version`;
  const samples: number[] = [];
  try {
    for (let i = 0; i < WARMUP; i++) await timedGet(agent, url);
    while (!until()) samples.push(await timedGet(agent, url));
  } finally {
    agent.destroy();
  }
  return samples;
}

interface LoadRow {
  rate: number;
  version: LatencySummary;
  sink: Record<string, string>;
  sent: Record<string, string>;
}

async function main(): Promise<void> {
  execFileSync('make', ['-s', '-C', UDPBLAST_SRC, `O=${TOOLS}`], { stdio: 'inherit' });
  if (!existsSync(join(TOOLS, 'udpblast'))) throw new Error(`udpblast was not built in ${TOOLS}`);

  daemon = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '31900-31999', EMUCTL_CONSOLE_PORT_RANGE: '25450-25499' } });
  // One switch built through the compute API: port 0 ← udpblast, port 1 → udpsink.
  const { inPort } = await buildSwitchHop(api, 'api-bench', SENDER_PORT, SINK_PORT);

  const windowMs = BLAST_SECONDS * 1000 - SETTLE_MS - 1000;
  const idleEnd = Date.now() + windowMs;
  const idle = summarize(await sampleVersion(() => Date.now() >= idleEnd));

  const rows: LoadRow[] = [];
  for (const rate of RATES) {
    const sink = runTool('udpsink', ['-p', String(SINK_PORT), '-i', '1000', '-x', '-w', '30']);
    await new Promise((r) => setTimeout(r, 200)); // the sink binds before the first frame
    const blast = runTool('udpblast', ['-t', `127.0.0.1:${inPort}`, '-b', String(SENDER_PORT), '-s', '64', '-r', String(rate), '-d', String(BLAST_SECONDS), '-q']);
    let blasting = true;
    void blast.done.finally(() => (blasting = false)).catch(() => {});
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    // Stop sampling a second before the sender does, so every sample is taken under load.
    const stopAt = Date.now() + windowMs;
    const samples = await sampleVersion(() => !blasting || Date.now() >= stopAt);
    const [sent, received] = await Promise.all([blast.done, sink.done]);
    rows.push({ rate, version: summarize(samples), sink: received, sent });
  }

  console.log(`\nAPI under load: back-to-back keep-alive \`GET /v2/version\` for ${windowMs / 1000} s after ${WARMUP} warm-up, idle, then while udpblast offers 64-byte frames through one switch hop for ${BLAST_SECONDS} s; ${machineLine()}\n`);
  console.log('| daemon state | calls | p50 ms | p99 ms | max ms | frames/s through the switch | loss |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  console.log(`| idle | ${idle.n} | ${ms(idle.p50)} | ${ms(idle.p99)} | ${ms(idle.max)} | – | – |`);
  for (const r of rows) {
    const loss = r.sink.loss_total_pct !== undefined && r.sink.loss_total_pct !== '-1.000' ? r.sink.loss_total_pct : r.sink.loss_seq_pct;
    console.log(`| ${r.rate / 1000}k frames/s offered | ${r.version.n} | ${ms(r.version.p50)} | ${ms(r.version.p99)} | ${ms(r.version.max)} | ${Math.round(Number(r.sink.pps)).toLocaleString('en')} | ${Number(loss).toFixed(2)}% |`);
  }
  const at50k = rows.find((r) => r.rate === 50_000);
  if (at50k) console.log(`\nTarget (issue 3): p99 under 20 ms at 50k frames/s — ${at50k.version.p99 < 20 ? 'met' : 'NOT met'} (${ms(at50k.version.p99)} ms).`);
}

await runBench('the API-under-load bench', 60_000 + RATES.length * (BLAST_SECONDS + 15) * 1000, main, stopAll);
