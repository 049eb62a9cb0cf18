// Forward-route benchmark (issue 5): latency of GET /v2/computes/{id}/network/interfaces through the
// controller beside the same GET /v2/compute/network/interfaces made directly to the compute, in one
// run, calls interleaved so both see the same machine state. Two real daemons on 127.0.0.1: a
// controller (+ local compute) and a compute-only daemon registered with it.
// Usage: npx tsc -p tsconfig.json && node dist/bench/forward/run.js [--n 2000] [--warmup 200]
import { startTestDaemon, removeHome, type TestDaemon } from '../../test/helpers/daemon.js';
import { keepAliveAgent, machineLine, ms, summarize, timedGet, type LatencySummary } from './latency.js';
import { numberArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';

const N = numberArg('n', 2000);
const WARMUP = numberArg('warmup', 200);
const TIME_LIMIT_MS = 180_000;

const daemons: TestDaemon[] = [];

async function stopAll(): Promise<void> {
  for (const d of daemons.splice(0)) {
    const timer = setTimeout(() => d.child.kill('SIGKILL'), 10_000);
    await d.stop();
    clearTimeout(timer);
    removeHome(d.home);
  }
}

interface Case {
  label: string;
  url: string;
  samples: number[];
}

async function main(): Promise<void> {
  const env = { EMUCTL_UDP_PORT_RANGE: '31800-31899', EMUCTL_CONSOLE_PORT_RANGE: '25400-25449' };
  const controller = await startTestDaemon({ env });
  daemons.push(controller);
  const compute = await startTestDaemon({ flags: { role: 'compute' }, env });
  daemons.push(compute);
  const registered = await controller.api('POST', '/v2/computes', { name: 'bench-compute', protocol: 'http', host: '127.0.0.1', port: compute.port });
  if (registered.status !== 201) throw new Error(`registering the compute failed: ${registered.text}`);
  const computeId = registered.body.compute_id as string;

  const cases: Case[] = [
    { label: 'direct: compute `GET /v2/compute/network/interfaces`', url: `${compute.url}/v2/compute/network/interfaces`, samples: [] },
    { label: 'forwarded: controller `GET /v2/computes/{id}/network/interfaces`', url: `${controller.url}/v2/computes/${computeId}/network/interfaces`, samples: [] },
    { label: 'direct: controller\'s own `GET /v2/compute/network/interfaces`', url: `${controller.url}/v2/compute/network/interfaces`, samples: [] },
    { label: 'forwarded to local: `GET /v2/computes/local/network/interfaces`', url: `${controller.url}/v2/computes/local/network/interfaces`, samples: [] },
  ];
  // One keep-alive connection per case, so no sample pays a TCP handshake.
  const agents = cases.map(() => keepAliveAgent());
  for (let i = 0; i < WARMUP + N; i++) {
    // Rotate the order every round, so no case always follows the same one.
    for (let k = 0; k < cases.length; k++) {
      const c = (i + k) % cases.length;
      const t = await timedGet(agents[c], cases[c].url);
      if (i >= WARMUP) cases[c].samples.push(t);
    }
  }
  for (const a of agents) a.destroy();

  const [direct, forwarded, localDirect, localForwarded] = cases.map((c) => summarize(c.samples));
  const row = (label: string, s: LatencySummary) => `| ${label} | ${s.n} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.mean)} |`;
  const added = (f: LatencySummary, d: LatencySummary) =>
    `+${ms(f.p50 - d.p50)} ms median (×${(f.p50 / d.p50).toFixed(2)}), +${ms(f.p99 - d.p99)} ms p99 (×${(f.p99 / d.p99).toFixed(2)})`;
  console.log(`\nForward route, ${N} sequential keep-alive calls per case after ${WARMUP} warm-up, interleaved; ${machineLine()}\n`);
  console.log('| call | n | median ms | p99 ms | mean ms |');
  console.log('|---|---:|---:|---:|---:|');
  cases.forEach((c, i) => console.log(row(c.label, [direct, forwarded, localDirect, localForwarded][i])));
  console.log(`\nForwarding to the remote compute adds ${added(forwarded, direct)}.`);
  console.log(`Forwarding to local adds ${added(localForwarded, localDirect)}.`);
  const ok = forwarded.p50 - direct.p50 < 2;
  console.log(`Target (issue 5): forwarding adds under 2 ms median — ${ok ? 'met' : 'NOT met'}.`);
}

await runBench('the forward bench', TIME_LIMIT_MS, main, stopAll);
