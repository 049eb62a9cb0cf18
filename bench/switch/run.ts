// Switch benchmark (issue 3): frames/s through one emuctl switch hop (64/512/1400-byte frames,
// unthrottled), loss and one-way latency at 50k and 100k frames/s offered, and RTT added per
// hop, beside the C relay (udprelay) and a naive Node dgram relay measured in the same run.
// Load comes from the C tools in ../shared/tools/udpblast (built out of tree; needs gcc/make).
// Only 127.0.0.1, ports in 21000-29999. Prints markdown tables.
// Usage: npx tsc -p tsconfig.json && node dist/bench/switch/run.js [--seconds 3] [--reps 3] [--pings 20000]
import { buildTools, machineLine } from '../lib/udpblast.js';
import { cRelay, direct, emuctl, flow, nodeRelay, ping, type FlowResult, type PingResult, type Target } from '../lib/targets.js';
import { numberArg } from '../lib/args.js';

const SECONDS = numberArg('seconds', 3);
const REPS = numberArg('reps', 3);
const PINGS = numberArg('pings', 20000);
const SIZES = [64, 512, 1400];
const RATES = [50_000, 100_000];

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');

/** Runs every hop REPS times, interleaved so all see the same machine; the median run (by frames/s) of each. */
async function medians(hops: Target[], run: (t: Target) => Promise<FlowResult>): Promise<FlowResult[]> {
  const runs: FlowResult[][] = hops.map(() => []);
  for (let i = 0; i < REPS; i++) for (const [k, t] of hops.entries()) runs[k].push(await run(t));
  return runs.map((r) => r.sort((a, b) => a.pps - b.pps)[Math.floor(r.length / 2)]);
}

async function main(): Promise<void> {
  const tools = buildTools();
  const targets: Target[] = [];
  try {
    const c = await cRelay(tools);
    targets.push(c);
    const naive = await nodeRelay();
    targets.push(naive);
    const sw = await emuctl('emuctl switch');
    targets.push(sw);
    const none = await direct();
    targets.push(none);
    const hops = [c, naive, sw];

    console.log(`# Switch bench: ${machineLine()}\n`);
    console.log(`${SECONDS} s per run; unthrottled: median of ${REPS} runs per hop, hops interleaved. All hops measured in this run.\n`);

    console.log('## Frames/s through one hop, unthrottled sender\n');
    console.log('Each cell: frames/s the sink received (CPU µs the hop\'s process spent per frame, all threads).\n');
    console.log('| frame size | C relay | naive Node relay | emuctl switch | switch / C relay | switch / naive Node |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    const cell = (r: FlowResult) => `${f0(r.pps)} (${f1(r.cpuUsPerFrame)} µs)`;
    for (const size of SIZES) {
      const r = await medians(hops, (t) => flow(tools, t, size, SECONDS));
      console.log(`| ${size} B | ${cell(r[0])} | ${cell(r[1])} | ${cell(r[2])} | ${(r[2].pps / r[0].pps).toFixed(2)} | ${(r[2].pps / r[1].pps).toFixed(2)} |`);
    }

    console.log('\n## Fixed offered rate, 64-byte frames\n');
    console.log('| offered | hop | received frames/s | loss % | one-way p50 µs | one-way p99 µs |');
    console.log('|---:|---|---:|---:|---:|---:|');
    let probe = '';
    for (const rate of RATES) {
      for (const t of [none, ...hops]) {
        // While 50k frames/s cross the switch, time commands to its worker (the API's path to it).
        const probing = t === sw && rate === 50_000 ? sw.command!(`probe ${(SECONDS - 1) * 1000}`, 'probe') : null;
        const r = await flow(tools, t, 64, SECONDS, rate);
        if (probing) probe = await probing;
        console.log(`| ${f0(rate)} | ${t.name} | ${f0(r.pps)} | ${r.lossPct.toFixed(2)} | ${f1(r.latP50)} | ${f1(r.latP99)} |`);
      }
    }

    console.log('\n## Latency added per hop (udpping, 64-byte frames, back to back)\n');
    console.log(`Median over ${REPS} interleaved runs of ${f0(PINGS)} pings each. A round trip crosses the hop twice, so added per hop = (RTT - direct RTT) / 2.\n`);
    console.log('| path | RTT p50 µs | RTT p99 µs | added per hop p50 µs | added per hop p99 µs |');
    console.log('|---|---:|---:|---:|---:|');
    const paths = [none, ...hops];
    const pings: PingResult[][] = paths.map(() => []);
    for (let i = 0; i < REPS; i++) for (const [k, t] of paths.entries()) pings[k].push(await ping(tools, t, PINGS));
    const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const rtt = pings.map((runs) => ({ p50: mid(runs.map((r) => r.p50)), p99: mid(runs.map((r) => r.p99)), lost: runs.reduce((s, r) => s + r.lost, 0) }));
    for (const [k, t] of paths.entries()) {
      const r = rtt[k];
      const added = k === 0 ? '- | -' : `${f1((r.p50 - rtt[0].p50) / 2)} | ${f1((r.p99 - rtt[0].p99) / 2)}`;
      console.log(`| ${t.name} | ${f1(r.p50)} | ${f1(r.p99)} | ${added} |${r.lost ? ` (${r.lost} lost)` : ''}`);
    }

    const stats = await sw.command!('stats', 'stats');
    console.log(`\nemuctl worker commands (a stats() round trip every 5 ms) while 50k frames/s crossed the switch: ${probe.replace(/^probe /, '')}`);
    console.log(`emuctl switch counters at the end: ${stats.replace(/^stats /, '')}`);
  } finally {
    for (const t of targets) await t.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
