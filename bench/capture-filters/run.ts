// Capture and filters benchmark (issue 4): frames/s through one emuctl switch hop with a
// capture off and on (target: capture costs < 15%), and with a 50 ms delay filter at
// 20k frames/s offered against no filter (target: the same frames/s), each beside its
// baseline measured in the same run. Load from ../shared/tools/udpblast (gcc/make).
// Only 127.0.0.1, ports in 21000-29999; the pcap goes to a temp dir, checked, then removed.
// Usage: npx tsc -p tsconfig.json && node dist/bench/capture-filters/run.js [--seconds 3] [--reps 5]
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTools, machineLine } from '../lib/udpblast.js';
import { emuctl, flow, type FlowResult, type Target } from '../lib/targets.js';
import { numberArg } from '../lib/args.js';

const SECONDS = numberArg('seconds', 3);
const REPS = numberArg('reps', 5);

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Records in a little-endian pcap file (walking the record headers). */
function pcapRecords(path: string): number {
  const b = readFileSync(path);
  let n = 0;
  for (let o = 24; o + 16 <= b.length; o += 16 + b.readUInt32LE(o + 8)) n++;
  return n;
}

/** Runs `fn` on each target in turn, REPS times (interleaved so all see the same machine), and keeps every result. */
async function interleaved(targets: Target[], fn: (t: Target) => Promise<FlowResult>): Promise<FlowResult[][]> {
  const out: FlowResult[][] = targets.map(() => []);
  for (let i = 0; i < REPS; i++) for (const [k, t] of targets.entries()) out[k].push(await fn(t));
  return out;
}

async function main(): Promise<void> {
  const tools = buildTools();
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-bench-capture-'));
  const pcap = join(dir, 'bench.pcap');
  const targets: Target[] = [];
  try {
    const plain = await emuctl('switch, no capture, no filter');
    targets.push(plain);
    const captured = await emuctl('switch, capture on port 0', { capturePath: pcap });
    targets.push(captured);
    const delayed = await emuctl('switch, delay 50 ms on port 0', { filters: { delay: [50] } });
    targets.push(delayed);

    console.log(`# Capture and filters bench: ${machineLine()}\n`);
    console.log(`${SECONDS} s per run, ${REPS} runs per case interleaved with its baseline; medians.\n`);

    console.log('## Capture cost, 64-byte frames\n');
    console.log('| sender | case | frames/s received | loss % | CPU µs per frame | frames/s vs no capture |');
    console.log('|---|---|---:|---:|---:|---:|');
    let recorded = 0;
    for (const rate of [0, 50_000]) {
      const [off, on] = await interleaved([plain, captured], (t) => flow(tools, t, 64, SECONDS, rate));
      const pps = [median(off.map((r) => r.pps)), median(on.map((r) => r.pps))];
      const sender = rate ? `${f0(rate)} frames/s` : 'unthrottled';
      for (const [k, runs] of [off, on].entries()) {
        const ratio = k === 0 ? '1.00' : (pps[1] / pps[0]).toFixed(2);
        console.log(`| ${sender} | ${[plain, captured][k].name} | ${f0(pps[k])} | ${median(runs.map((r) => r.lossPct)).toFixed(2)} | ${f1(median(runs.map((r) => r.cpuUsPerFrame)))} | ${ratio} |`);
      }
      recorded += on.reduce((s, r) => s + r.rx, 0);
    }

    console.log('\n## Delay filter, 64-byte frames at 20,000 frames/s offered\n');
    console.log('| case | frames/s received | loss % | one-way p50 ms | one-way p99 ms |');
    console.log('|---|---:|---:|---:|---:|');
    const [base, delay] = await interleaved([plain, delayed], (t) => flow(tools, t, 64, SECONDS, 20_000));
    for (const [k, runs] of [base, delay].entries()) {
      const ms = (us: number) => (us / 1000).toFixed(2);
      console.log(`| ${[plain, delayed][k].name} | ${f0(median(runs.map((r) => r.pps)))} | ${median(runs.map((r) => r.lossPct)).toFixed(2)} | ${ms(median(runs.map((r) => r.latP50)))} | ${ms(median(runs.map((r) => r.latP99)))} |`);
    }

    await captured.stop(); // flushes and closes the capture
    const records = pcapRecords(pcap);
    console.log(`\nCapture file check: ${f0(records)} records (${(statSync(pcap).size / 1e6).toFixed(1)} MB) for ${f0(recorded)} frames the sink received while capturing (the pcap also holds frames the sink missed).`);
  } finally {
    for (const t of targets) await t.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
