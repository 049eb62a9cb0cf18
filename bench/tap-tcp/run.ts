// TCP through the dataplane between two containers' worth of network: two network namespaces,
// each behind a TAP the native dataplane holds in a 2-port wire (a docker adapter, a cloud tap
// port), the wires linked by UDP tunnels directly or through an ethernet switch. iperf3 A → B,
// with TAP offloads (native/offload.c, the default) and without (tap_offload false), against
// a veth pair between two namespaces in the same round. Rounds alternate the order of the cases.
// Needs root; traffic stays in the namespaces this bench makes (198.18.0.0/15) and on 127.0.0.1.
// Usage: npm run build && node dist/bench/tap-tcp/run.js [--rounds 3] [--seconds 3]
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { createDataplane, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { removeInterfaces } from '../../src/daemon/dataplane/host-interfaces.js';
import { freePort } from '../../test/dataplane/helpers.js';
import { machineLine } from '../forward/latency.js';
import { numberArg } from '../lib/args.js';
import { median } from '../lib/stats.js';

const run = promisify(execFile);
const ROUNDS = numberArg('rounds', 3);
const SECONDS = numberArg('seconds', 3);
const PREFIX = `ebt${(process.pid % 1296).toString(36)}`;

interface Case {
  name: string;
  nsA: string;
  nsB: string;
  server: string;
}

const ip = (...args: string[]) => run('ip', args);
const inNs = (ns: string, ...args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function address(ns: string, dev: string, cidr: string): Promise<void> {
  await inNs(ns, 'ip', 'addr', 'add', cidr, 'dev', dev);
  await inNs(ns, 'ip', 'link', 'set', dev, 'up');
}

async function link(dp: DataplaneApi, a: string, pa: number, b: string, pb: number): Promise<void> {
  const [la, lb] = [await freePort(), await freePort()];
  await dp.addNio(a, pa, { bindHost: '127.0.0.1', lport: la, rhost: '127.0.0.1', rport: lb });
  await dp.addNio(b, pb, { bindHost: '127.0.0.1', lport: lb, rhost: '127.0.0.1', rport: la });
}

/** Two namespaces whose TAPs sit in wires of `dp`, linked directly or through a switch; subnet 198.18.<net>.0/24. */
async function wiredCase(dp: DataplaneApi, name: string, tag: string, net: number, viaSwitch: boolean): Promise<Case> {
  const c = { name, nsA: `${PREFIX}${tag}a`, nsB: `${PREFIX}${tag}b`, server: `198.18.${net}.2` };
  const ports = [0, 1].map((port) => ({ port, type: 'access' as const, vlan: 1 }));
  for (const side of ['a', 'b']) {
    const tap = `${PREFIX}${tag}${side}`;
    await ip('netns', 'add', `${PREFIX}${tag}${side}`);
    await dp.createNode(`${tag}${side}`, 'hub', ports);
    await dp.addNio(`${tag}${side}`, 0, { kind: 'tap', ifname: tap });
    await ip('link', 'set', tap, 'netns', `${PREFIX}${tag}${side}`);
    await address(`${PREFIX}${tag}${side}`, tap, `198.18.${net}.${side === 'a' ? 1 : 2}/24`);
  }
  if (viaSwitch) {
    await dp.createNode(`${tag}sw`, 'switch', ports);
    await link(dp, `${tag}a`, 1, `${tag}sw`, 0);
    await link(dp, `${tag}sw`, 1, `${tag}b`, 1);
  } else {
    await link(dp, `${tag}a`, 1, `${tag}b`, 1);
  }
  return c;
}

async function vethCase(net: number): Promise<Case> {
  const c = { name: 'veth pair (kernel only)', nsA: `${PREFIX}va`, nsB: `${PREFIX}vb`, server: `198.18.${net}.2` };
  for (const ns of [c.nsA, c.nsB]) await ip('netns', 'add', ns);
  await ip('link', 'add', `${PREFIX}v1`, 'netns', c.nsA, 'type', 'veth', 'peer', 'name', `${PREFIX}v2`, 'netns', c.nsB);
  await address(c.nsA, `${PREFIX}v1`, `198.18.${net}.1/24`);
  await address(c.nsB, `${PREFIX}v2`, `198.18.${net}.2/24`);
  return c;
}

/** iperf3 from the case's A to its B for SECONDS: the receiver's bits/s. */
async function iperf(c: Case): Promise<number> {
  const srv = spawn('ip', ['netns', 'exec', c.nsB, 'iperf3', '-s', '-1', '--forceflush', '-B', c.server], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await once(srv.stdout!, 'data');
    const { stdout } = await inNs(c.nsA, 'iperf3', '-c', c.server, '-t', String(SECONDS), '-J');
    return JSON.parse(stdout).end.sum_received.bits_per_second as number;
  } finally {
    srv.kill();
  }
}

const gbit = (bps: number) => (bps / 1e9).toFixed(2);

async function main(): Promise<void> {
  const withOffload = await createDataplane({ engine: 'native', offload: true, log: quiet });
  const without = await createDataplane({ engine: 'native', offload: false, log: quiet });
  try {
    const cases = [
      await vethCase(60),
      await wiredCase(withOffload, 'wires, offloads', 'o', 61, false),
      await wiredCase(withOffload, 'wires + switch, offloads', 'p', 62, true),
      await wiredCase(without, 'wires, no offloads', 'n', 63, false),
      await wiredCase(without, 'wires + switch, no offloads', 'q', 64, true),
    ];
    const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? [...cases].reverse() : cases;
      for (const c of order) results.get(c.name)!.push(await iperf(c));
    }
    const veth = median(results.get(cases[0].name)!);
    console.log(`TAP TCP bench: ${machineLine()}, ${ROUNDS} rounds, iperf3 ${SECONDS} s, native engine\n`);
    console.log('| path A → B | Gbit/s (median) | range | vs the veth pair, same rounds |');
    console.log('|---|---|---|---|');
    for (const c of cases) {
      const xs = results.get(c.name)!;
      console.log(`| ${c.name} | ${gbit(median(xs))} | ${gbit(Math.min(...xs))}–${gbit(Math.max(...xs))} | ${(median(xs) / veth).toFixed(2)}× |`);
    }
  } finally {
    await withOffload.close().catch(() => undefined);
    await without.close().catch(() => undefined);
    const { stdout } = await ip('netns', 'list');
    for (const ns of stdout.split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(PREFIX))) await ip('netns', 'delete', ns).catch(() => undefined);
    await removeInterfaces(PREFIX).catch(() => undefined);
  }
}

await main();
