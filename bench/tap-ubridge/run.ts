// TAP path vs ubridge's TAP path (issue 19): frames/s through a container interface's host side,
// an emuctl 2-port dataplane wire (UDP NIO + TAP NIO, both engines) against GNS3's ubridge
// (a bridge of a UDP NIO and a TAP NIO), in the same run, rounds interleaved, both directions:
//   UDP → TAP: udpblast into the wire's UDP port; delivered = the TAP's rx_packets;
//   TAP → UDP: tapblast (bench/tap-ubridge/tapblast.c) sends on the TAP's kernel side through
//              an AF_PACKET socket; delivered = frames udpsink counts.
// Each direction unthrottled, and paced at --rate (loss and CPU per frame at a rate all can carry).
// CPU per frame: the forwarding process's user + system time over the frames delivered.
// Needs root (TAPs, AF_PACKET), ubridge (UBRIDGE=/path or PATH), only 127.0.0.1 and TAPs it creates.
// Usage: npm run build && node dist/bench/tap-ubridge/run.js [--seconds 3] [--rounds 3] [--rate 50000] [--pin]
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { numberArg, stringArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';
import { f0, median, spread } from '../lib/stats.js';
import { cpuSeconds } from '../lib/targets.js';
import { buildBenchTool, buildTools, freePortBlock, kv, machineLine, run, sleep, start } from '../lib/udpblast.js';
import { emuctlWire, findUbridge, onCpu, ubridgeWire, type TapWire } from './wires.js';

const SECONDS = numberArg('seconds', 3);
const ROUNDS = numberArg('rounds', 3);
const RATE = numberArg('rate', 50_000);
const ENGINES = stringArg('engines', 'native,js').split(',').filter(Boolean);
/** --pin: the load tools (sender, sink) on CPU 0, the forwarding process on CPU 1, so the scheduler does not decide who shares a core. */
const PIN = process.argv.includes('--pin');
const LOAD_CPU = PIN ? 0 : undefined;
const WIRE_CPU = PIN ? 1 : undefined;

type Direction = 'udp→tap' | 'tap→udp';
type Path = string;

interface Sample {
  offered: number;
  delivered: number;
  lossPct: number;
  cpuUs: number;
}

const counter = (tap: string, name: string) => readFile(`/sys/class/net/${tap}/statistics/${name}`, 'utf8').then(Number);

/** One measurement through a fresh wire: `rate` 0 is unthrottled. */
async function measure(tools: { dir: string; tapblast: string }, wire: TapWire, direction: Direction, rate: number): Promise<Sample> {
  await sleep(200);
  const cpu0 = cpuSeconds(wire.pid);
  let sent: Record<string, number>;
  let delivered: number;
  if (direction === 'udp→tap') {
    const before = await counter(wire.tap, 'rx_packets');
    const args = ['-t', `127.0.0.1:${wire.udpPort}`, '-b', String(wire.peerPort), '-s', '64', '-d', String(SECONDS)];
    sent = kv(await run(...onCpu(LOAD_CPU, `${tools.dir}/udpblast`, rate ? [...args, '-r', String(rate)] : args), (SECONDS + 15) * 1000));
    await sleep(300);
    delivered = (await counter(wire.tap, 'rx_packets')) - before;
  } else {
    const sink = start(...onCpu(LOAD_CPU, `${tools.dir}/udpsink`, ['-p', String(wire.peerPort), '-x', '-i', '700', '-w', '20']), (SECONDS + 30) * 1000);
    await sleep(150);
    const args = ['-i', wire.tap, '-s', '64', '-d', String(SECONDS)];
    sent = kv(await run(...onCpu(LOAD_CPU, tools.tapblast, rate ? [...args, '-r', String(rate)] : args), (SECONDS + 15) * 1000));
    delivered = kv(await sink.done).uniq ?? 0;
  }
  const cpu = cpuSeconds(wire.pid) - cpu0;
  const elapsed = sent.elapsed_s || SECONDS;
  return {
    offered: (sent.sent ?? 0) / elapsed,
    delivered: delivered / elapsed,
    lossPct: sent.sent ? (100 * Math.max(0, sent.sent - delivered)) / sent.sent : 100,
    cpuUs: delivered ? (cpu * 1e6) / delivered : NaN,
  };
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const live = new Set<TapWire>();

async function main(ubridge: string): Promise<void> {
  const tools = { dir: buildTools(), tapblast: buildBenchTool('bench/tap-ubridge/tapblast.c') };
  const paths: Path[] = [...ENGINES.map((e) => `emuctl ${e}`), 'ubridge'];
  const directions: Direction[] = ['udp→tap', 'tap→udp'];
  const rates = [0, RATE];
  const results = new Map<string, Sample[]>();
  const key = (p: Path, d: Direction, r: number) => `${p}|${d}|${r}`;
  const tapPrefix = `ebu${(process.pid % 1296).toString(36)}`;
  let n = 0;
  console.log(`TAP path vs ubridge: ${machineLine()}, ${SECONDS} s per flow, ${ROUNDS} rounds, 64-byte frames, paced rate ${f0(RATE)} frames/s, ${PIN ? 'load tools on CPU 0 and the forwarder on CPU 1' : 'no CPU pinning'}, ubridge ${ubridge}\n`);
  for (let round = 0; round < ROUNDS; round++) {
    const order = paths.map((_, i) => paths[(i + round) % paths.length]);
    console.error(`round ${round + 1}: load ${loadavg()}, order ${order.join(', ')}`);
    for (const direction of directions) {
      for (const rate of rates) {
        for (const path of order) {
          const ports = await freePortBlock(2);
          const tap = `${tapPrefix}${(n++ % 1296).toString(36)}`;
          const wire = path === 'ubridge' ? await ubridgeWire(ubridge, tap, ports, ports + 1, WIRE_CPU) : await emuctlWire(path.split(' ')[1], tap, ports, ports + 1, WIRE_CPU);
          live.add(wire);
          try {
            const s = await measure(tools, wire, direction, rate);
            results.set(key(path, direction, rate), [...(results.get(key(path, direction, rate)) ?? []), s]);
          } finally {
            live.delete(wire);
            await wire.stop();
          }
        }
      }
    }
  }

  const pct = (x: number) => `${x.toFixed(2)}%`;
  const us = (x: number) => x.toFixed(2);
  const ratio = (x: number) => `${x.toFixed(2)}×`;
  console.log('| direction | offered | path | frames/s delivered | × ubridge (median (min–max): each round) | loss | CPU µs/frame | × ubridge |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|');
  for (const direction of directions) {
    for (const rate of rates) {
      const ub = results.get(key('ubridge', direction, rate)) ?? [];
      for (const path of paths) {
        const xs = results.get(key(path, direction, rate)) ?? [];
        const perRound = xs.map((s, i) => s.delivered / ub[i].delivered);
        const vs = path === 'ubridge' ? '–' : `${spread(perRound, ratio)}: ${perRound.map((x) => x.toFixed(2)).join(', ')}`;
        const cpuVs = path === 'ubridge' ? '–' : spread(xs.map((s, i) => s.cpuUs / ub[i].cpuUs), ratio);
        const offered = rate ? f0(rate) : `unthrottled (${f0(median(xs.map((s) => s.offered)))})`;
        console.log(`| ${direction.replace('udp', 'UDP').replace('tap', 'TAP')} | ${offered} | ${path} | ${spread(xs.map((s) => s.delivered), f0)} | ${vs} | ${spread(xs.map((s) => s.lossPct), pct)} | ${spread(xs.map((s) => s.cpuUs), us)} | ${cpuVs} |`);
      }
    }
  }
  console.log(`\nload average at the end: ${loadavg()}`);
}

let ubridge = '';
try {
  ubridge = findUbridge();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
await runBench('tap-ubridge bench', (ROUNDS * 12 * (SECONDS + 8) + 120) * 1000, () => main(ubridge), async () => {
  for (const wire of live) await wire.stop().catch(() => undefined);
});
