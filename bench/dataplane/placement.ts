// Where should the switching decision run? (issue 13) Measures the two costs a "JS over
// batches" design would add to the native engine's I/O threads, on this machine:
//  1. the TypeScript switch's own work per 64-byte frame (SwitchEngine.forward, MAC learn and
//     lookup, 2 ports, egress recorded into an array instead of a socket);
//  2. one round trip between a native I/O thread and the JavaScript thread per batch: measured
//     as a MessagePort ping-pong between two threads (the same uv_async wake-up a N-API
//     threadsafe function uses), p50/p99 over 20,000 round trips.
// Usage: npx tsc -p tsconfig.json && node dist/bench/dataplane/placement.js
import { performance } from 'node:perf_hooks';
import { MessageChannel, Worker } from 'node:worker_threads';
import { Port } from '../../src/daemon/dataplane/port.js';
import { SwitchEngine } from '../../src/daemon/dataplane/switch-engine.js';
import { ACCESS, TPID_8021Q } from '../../src/daemon/dataplane/vlan.js';

function switchCost(frames: number): number {
  const sent: Buffer[] = [];
  const owner = { suspended: false, engine: null as unknown as SwitchEngine };
  const node = { active: [] as Port[] };
  const engine = new SwitchEngine(node, 300);
  owner.engine = engine;
  const ports = [0, 1].map((n) => new Port(n, { mode: ACCESS, vlan: 1, tpid: TPID_8021Q }, owner));
  for (const p of ports) p.nio = { send: (f: Buffer) => void sent.push(f) } as unknown as Port['nio'];
  node.active = ports;
  const a = Buffer.alloc(64), b = Buffer.alloc(64);
  Buffer.from('02000000000b02000000000a88b5', 'hex').copy(a);
  Buffer.from('02000000000a02000000000b88b5', 'hex').copy(b);
  ports[1].receive(b); // learn B
  const t = performance.now();
  for (let i = 0; i < frames; i++) {
    ports[0].receive(a);
    if (sent.length > 1024) sent.length = 0;
  }
  return ((performance.now() - t) * 1e6) / frames;
}

async function handoff(n: number): Promise<{ p50: number; p99: number }> {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker('const { workerData: p } = require("node:worker_threads"); p.on("message", (m) => p.postMessage(m));', {
    eval: true, workerData: port2, transferList: [port2],
  });
  const samples: number[] = [];
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < n + 1000; i++) {
    const t = performance.now();
    await new Promise((r) => {
      port1.once('message', r);
      port1.postMessage(i);
    });
    if (i >= 1000) samples.push((performance.now() - t) * 1000);
  }
  await worker.terminate();
  port1.close();
  samples.sort((x, y) => x - y);
  return { p50: samples[Math.floor(n / 2)], p99: samples[Math.floor(n * 0.99)] };
}

const warm = switchCost(200_000);
const ns = Math.min(switchCost(2_000_000), switchCost(2_000_000));
const rt = await handoff(20_000);
console.log(`TypeScript switch work per 64-byte frame (warm-up ${warm.toFixed(0)} ns): ${ns.toFixed(0)} ns`);
console.log(`thread round trip (MessagePort ping-pong): p50 ${rt.p50.toFixed(1)} µs, p99 ${rt.p99.toFixed(1)} µs`);
