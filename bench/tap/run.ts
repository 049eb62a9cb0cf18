// TAP NIO benchmark: 64-byte frames/s out of a dataplane port through a TAP NIO (written to
// the TAP: counted by the kernel as the interface's rx_packets) beside the same port with a
// UDP NIO to udpsink, in the same run, on both engines. Load: udpblast into a UDP NIO on
// port 0 of a hub, unthrottled. Needs root (CAP_NET_ADMIN) for the TAP; only 127.0.0.1 and a
// TAP this bench creates (deleted with its NIO). bench/tap-ubridge compares the TAP path with ubridge.
// Usage: npx tsc -p tsconfig.json && node dist/bench/tap/run.js [--seconds 3] [--reps 3]
import { readFile } from 'node:fs/promises';
import { createDataplane, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { numberArg } from '../lib/args.js';
import { buildTools, freePortBlock, kv, machineLine, run, sleep, start } from '../lib/udpblast.js';

const SECONDS = numberArg('seconds', 3);
const REPS = numberArg('reps', 3);
const TAP = `embench${(process.pid % 1296).toString(36)}`;

type Egress = 'udp' | 'tap';

async function rxPackets(ifname: string): Promise<number> {
  return Number(await readFile(`/sys/class/net/${ifname}/statistics/rx_packets`, 'utf8'));
}

/** One run: frames/s offered by udpblast and delivered out of port 1. */
async function once(tools: string, dp: DataplaneApi, egress: Egress): Promise<{ offered: number; delivered: number }> {
  const base = await freePortBlock(4);
  await dp.createNode('h', 'hub', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }]);
  try {
    await dp.addNio('h', 0, { bindHost: '127.0.0.1', lport: base, rhost: '127.0.0.1', rport: base + 1 });
    const sink = egress === 'udp' ? start(`${tools}/udpsink`, ['-p', String(base + 3), '-i', '500', '-x']) : null;
    if (egress === 'udp') await dp.addNio('h', 1, { bindHost: '127.0.0.1', lport: base + 2, rhost: '127.0.0.1', rport: base + 3 });
    else await dp.addNio('h', 1, { kind: 'tap', ifname: TAP });
    await sleep(300);
    const before = egress === 'tap' ? await rxPackets(TAP) : 0;
    const sent = kv(await run(`${tools}/udpblast`, ['-t', `127.0.0.1:${base}`, '-b', String(base + 1), '-s', '64', '-d', String(SECONDS)]));
    await sleep(egress === 'tap' ? 300 : 0);
    const delivered = egress === 'tap' ? (await rxPackets(TAP)) - before : kv(sink ? await sink.done : '').rx ?? 0;
    return { offered: sent.pps, delivered: delivered / SECONDS };
  } finally {
    await dp.deleteNode('h');
  }
}

const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const tools = buildTools();
  console.log(`TAP NIO bench: ${machineLine()}, ${SECONDS} s x ${REPS} rounds, 64-byte frames\n`);
  console.log('| engine | egress | frames/s delivered (median) | runs | offered | TAP / UDP |');
  console.log('|---|---|---|---|---|---|');
  for (const engine of ['native', 'js']) {
    const dp = await createDataplane({ engine });
    try {
      const runs: Record<Egress, number[]> = { udp: [], tap: [] };
      const offered: number[] = [];
      for (let i = 0; i < REPS; i++) {
        for (const egress of ['udp', 'tap'] as const) {
          const r = await once(tools, dp, egress);
          runs[egress].push(r.delivered);
          offered.push(r.offered);
        }
      }
      const udp = median(runs.udp), tap = median(runs.tap);
      console.log(`| ${engine} | UDP NIO → udpsink | ${f0(udp)} | ${runs.udp.map(f0).join(', ')} | ${f0(median(offered))} | – |`);
      console.log(`| ${engine} | TAP NIO → kernel | ${f0(tap)} | ${runs.tap.map(f0).join(', ')} | ${f0(median(offered))} | ${(tap / udp).toFixed(2)}× |`);
    } finally {
      await dp.close();
    }
  }
}

await main();
