// Dataplane benchmark (issue 13): one switch hop on the native engine and on the TypeScript
// engine, beside the C relay (udprelay plain) and a naive Node relay, all measured in the same
// rounds (interleaved). Per round: 64-byte frames/s unthrottled, CPU per frame and loss at
// 100k frames/s offered, RTT added per hop (udpping), capture cost, and two independent hops
// at once against one. Prints every figure as median (min-max) over the rounds, with the load
// average of each round. Load from ../shared/tools/udpblast (gcc/make); only 127.0.0.1.
// Usage: npx tsc -p tsconfig.json && node dist/bench/dataplane/run.js [--rounds 3] [--seconds 3] [--pings 20000]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTools, machineLine } from '../lib/udpblast.js';
import { cpuSeconds, cRelay, direct, emuctl, emuctlHops, flow, nodeRelay, ping, type FlowResult, type Target } from '../lib/targets.js';
import { numberArg } from '../lib/args.js';

const ROUNDS = numberArg('rounds', 3);
const SECONDS = numberArg('seconds', 3);
const PINGS = numberArg('pings', 20000);
const RATE = 100_000;

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sorted = (xs: number[]) => xs.filter(Number.isFinite).sort((a, b) => a - b);
/** "median (min-max)" of one figure over the rounds. */
function spread(xs: number[], digits = 2, unit = ''): string {
  const s = sorted(xs);
  if (!s.length) return '-';
  const f = (n: number) => (Math.abs(n) >= 1000 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits));
  return `${f(s[Math.floor(s.length / 2)])}${unit} (${f(s[0])}–${f(s[s.length - 1])})`;
}

interface Round {
  load: string;
  unthrottled: FlowResult[];
  paced: FlowResult[];
  pingP50: number[];
  pingP99: number[];
  capture: FlowResult[];
  pairs: number[];
  /** Cores the pair's hop process(es) kept busy: CPU seconds over wall seconds. */
  pairCores: number[];
}

async function both(a: Target, b: Target, tools: string): Promise<{ pps: number; cores: number }> {
  const pids = [...new Set([a.pid, b.pid])];
  const cpu = () => pids.map(cpuSeconds).reduce((sum, c) => sum + c, 0);
  const cpu0 = cpu();
  const [x, y] = await Promise.all([flow(tools, a, 64, SECONDS), flow(tools, b, 64, SECONDS)]);
  // Frames flow for SECONDS; before and after, the hops idle.
  const cores = (cpu() - cpu0) / SECONDS;
  return { pps: x.pps + y.pps, cores };
}

async function main(): Promise<void> {
  const tools = buildTools();
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-bench-dp-'));
  const targets: Target[] = [];
  const keep = <T extends Target | Target[]>(t: T): T => {
    targets.push(...([] as Target[]).concat(t));
    return t;
  };
  try {
    const none = keep(await direct());
    const hops = [
      keep(await cRelay(tools)),
      keep(await nodeRelay()),
      keep(await emuctl('emuctl switch, native engine', { engine: 'native' })),
      keep(await emuctl('emuctl switch, TypeScript engine', { engine: 'js' })),
    ];
    const captured = [
      keep(await emuctl('native, capture on', { engine: 'native', capturePath: join(dir, 'native.pcap') })),
      keep(await emuctl('TypeScript, capture on', { engine: 'js', capturePath: join(dir, 'js.pcap') })),
    ];
    const pairs = [
      [keep(await cRelay(tools)), keep(await cRelay(tools))],
      keep(await emuctlHops(['native hop 1', 'native hop 2'], { engine: 'native' })),
      keep(await emuctlHops(['TypeScript hop 1', 'TypeScript hop 2'], { engine: 'js' })),
    ];
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = loadavg();
      const round: Round = { load: '', unthrottled: [], paced: [], pingP50: [], pingP99: [], capture: [], pairs: [], pairCores: [] };
      for (const t of hops) round.unthrottled.push(await flow(tools, t, 64, SECONDS));
      for (const t of captured) round.capture.push(await flow(tools, t, 64, SECONDS));
      for (const [a, b] of pairs) {
        const { pps, cores } = await both(a, b, tools);
        round.pairs.push(pps);
        round.pairCores.push(cores);
      }
      for (const t of hops) round.paced.push(await flow(tools, t, 64, SECONDS, RATE));
      for (const t of [none, ...hops]) {
        const p = await ping(tools, t, PINGS);
        round.pingP50.push(p.p50);
        round.pingP99.push(p.p99);
      }
      round.load = `${start} → ${loadavg()}`;
      rounds.push(round);
      console.error(`round ${r + 1}/${ROUNDS} done (load ${round.load})`);
    }
    report(rounds, hops, pairs.map((p) => p[0].name.replace(/ 1$/, '')));
  } finally {
    for (const t of targets) await t.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(rounds: Round[], hops: Target[], pairNames: string[]): void {
  const col = (f: (r: Round) => number, digits = 2, unit = '') => spread(rounds.map(f), digits, unit);
  console.log(`# Dataplane bench: ${machineLine()}\n`);
  console.log(`${ROUNDS} rounds, ${SECONDS} s per flow, ${PINGS.toLocaleString('en-US')} pings per path; every hop measured in every round, interleaved. Figures: median (min–max) over the rounds; ratios are taken within each round.\n`);
  console.log('| round | load average (1, 5, 15 min) at start → end |');
  console.log('|---:|---|');
  rounds.forEach((r, i) => console.log(`| ${i + 1} | ${r.load} |`));

  console.log('\n## One hop, 64-byte frames\n');
  console.log(`| hop | frames/s unthrottled | × C relay | CPU µs/frame at ${RATE / 1000}k offered | × C relay | loss at ${RATE / 1000}k offered | RTT added per hop p50 µs | p99 µs |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  hops.forEach((t, k) => {
    const added = (p: 'pingP50' | 'pingP99') => (r: Round) => (r[p][k + 1] - r[p][0]) / 2;
    console.log(`| ${t.name} | ${col((r) => r.unthrottled[k].pps, 0)} | ${col((r) => r.unthrottled[k].pps / r.unthrottled[0].pps)} `
      + `| ${col((r) => r.paced[k].cpuUsPerFrame)} | ${col((r) => r.paced[k].cpuUsPerFrame / r.paced[0].cpuUsPerFrame)} `
      + `| ${col((r) => r.paced[k].lossPct, 2, '%')} | ${col(added('pingP50'), 1)} | ${col(added('pingP99'), 1)} |`);
  });
  console.log(`\nDirect path (no hop) RTT: p50 ${col((r) => r.pingP50[0], 1)} µs, p99 ${col((r) => r.pingP99[0], 1)} µs. `
    + `CPU per frame unthrottled: ${hops.map((t, k) => `${t.name} ${col((r) => r.unthrottled[k].cpuUsPerFrame)} µs`).join('; ')}.`);

  console.log('\n## Capture cost (capture on port 0, every frame recorded), unthrottled 64-byte frames\n');
  console.log('| engine | frames/s, capture on | × the same engine without capture |');
  console.log('|---|---:|---:|');
  [['native', 2], ['TypeScript', 3]].forEach(([name, k], i) => {
    console.log(`| ${name} | ${col((r) => r.capture[i].pps, 0)} | ${col((r) => r.capture[i].pps / r.unthrottled[k as number].pps)} |`);
  });

  console.log('\n## Two independent hops at once (two senders, two sinks), unthrottled 64-byte frames\n');
  console.log('The C relays are two processes; each emuctl pair is two nodes in one dataplane process. "Cores busy": CPU time of the hop process(es) over the seconds frames flowed (the senders and sinks use the rest).\n');
  console.log('| hops | aggregate frames/s | × one hop alone | cores busy in the hop process(es) |');
  console.log('|---|---:|---:|---:|');
  const single = [0, 2, 3];
  pairNames.forEach((name, i) => {
    console.log(`| ${name} ×2 | ${col((r) => r.pairs[i], 0)} | ${col((r) => r.pairs[i] / r.unthrottled[single[i]].pps)} | ${col((r) => r.pairCores[i])} |`);
  });
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
