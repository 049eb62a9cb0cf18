// Runs an emuctl dataplane (its worker thread, and the native engine's threads) in a process
// of its own, for the benches: nodes wired to UDP ports (or TAPs) from a JSON config given as argv[2].
// Prints "ready" once frames can flow. stdin commands: "stats" prints node 0's port counters
// as JSON; "probe MS" times a stats() round trip to the worker every 5 ms (as API calls
// would come) for MS ms and prints p50/p99.
// SIGTERM closes the dataplane (flushing captures) and exits.
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDataplane, type DataplaneNodeKind, type LinkFilters } from '../../src/daemon/dataplane/index.js';

export interface HostNode {
  kind: DataplaneNodeKind;
  /** Each port a UDP NIO (lport connected to rport on 127.0.0.1) or a TAP NIO on the named TAP. */
  ports: ({ port: number; lport: number; rport: number; filters?: LinkFilters } | { port: number; tap: string })[];
  capture?: { port: number; path: string };
}

export interface HostConfig {
  /** js, native or auto (createDataplane's choice). */
  engine?: string;
  nodes: HostNode[];
}

const config = JSON.parse(process.argv[2]) as HostConfig;
const dp = await createDataplane({ engine: config.engine });
for (const [i, node] of config.nodes.entries()) {
  const id = `bench${i}`;
  await dp.createNode(id, node.kind, node.ports.map(({ port }) => ({ port, type: 'access' as const, vlan: 1 })));
  for (const p of node.ports) {
    if ('tap' in p) await dp.addNio(id, p.port, { kind: 'tap', ifname: p.tap });
    else await dp.addNio(id, p.port, { bindHost: '127.0.0.1', lport: p.lport, rhost: '127.0.0.1', rport: p.rport }, { filters: p.filters });
  }
  if (node.capture) await dp.startCapture(id, node.capture.port, node.capture.path, 1);
}

async function probe(ms: number): Promise<string> {
  const samples: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    await dp.stats('bench0');
    samples.push(performance.now() - t);
    await sleep(5);
  }
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))].toFixed(3);
  return `probe n=${samples.length} p50_ms=${pct(50)} p99_ms=${pct(99)} max_ms=${samples[samples.length - 1].toFixed(3)}`;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const [cmd, arg] = line.trim().split(/\s+/);
  if (cmd === 'stats') void dp.stats('bench0').then((s) => console.log(`stats ${JSON.stringify(s)}`));
  else if (cmd === 'probe') void probe(Number(arg)).then(console.log);
});
process.on('SIGTERM', () => {
  void dp.close().then(() => process.exit(0));
});
console.log(`ready ${dp.engine}`);
