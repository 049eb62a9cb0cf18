// Notification bench (issue 8): how many events one project stream delivers to 1, 10 and 100
// websocket clients while nodes are created in a loop, what that fan-out costs the loop (against
// the same loop with no client, in the same run), and the delay from the API call to its event.
// Each case is run --rounds times, the cases interleaved in a rotating order; medians are printed.
// Usage: npx tsc -p tsconfig.json && node dist/bench/events/run.js [--nodes 200] [--rounds 3] [--clients 1,10,100]
import WebSocket from 'ws';
import { startTestDaemon, removeHome, type TestDaemon } from '../../test/helpers/daemon.js';
import { machineLine, ms, summarize } from '../forward/latency.js';
import { stringArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';

const NODES = Number(stringArg('nodes', '200'));
const ROUNDS = Number(stringArg('rounds', '3'));
const CLIENT_COUNTS = stringArg('clients', '1,10,100').split(',').map(Number);
const TIME_LIMIT_MS = 300_000;

let daemon: TestDaemon | undefined;

interface CaseResult {
  clients: number;
  seconds: number;
  /** node.created events received by every client together. */
  delivered: number;
  /** Milliseconds from the start of each POST to the event's arrival, at every client. */
  delays: number[];
  /** Milliseconds from the start of each POST to its answer (the baseline for the delays). */
  answers: number[];
}

/** Opens `n` websocket clients on a project's stream; each records when each node.created arrives. */
async function openClients(d: TestDaemon, projectId: string, n: number, arrivals: Map<string, number[]>): Promise<WebSocket[]> {
  const url = `${d.url.replace(/^http/, 'ws')}/v2/projects/${projectId}/notifications/ws`;
  return Promise.all(Array.from({ length: n }, () => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('message', (data) => {
      const at = performance.now();
      const m = JSON.parse(data.toString()) as { action: string; event: { name?: string } };
      if (m.action === 'node.created' && m.event.name) arrivals.get(m.event.name)?.push(at);
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  })));
}

/** Creates NODES hubs one after the other in a fresh project, with `clients` listening to its stream. */
async function runCase(d: TestDaemon, clients: number): Promise<CaseResult> {
  const project = await d.api('POST', '/v2/projects', { name: `bench-${clients}-${Date.now()}` });
  if (project.status !== 201) throw new Error(`creating the project failed: ${project.text}`);
  const projectId = project.body.project_id as string;
  const arrivals = new Map<string, number[]>();
  const sent = new Map<string, number>();
  const sockets = await openClients(d, projectId, clients, arrivals);
  const answers: number[] = [];
  const started = performance.now();
  for (let i = 0; i < NODES; i++) {
    const name = `H${i}`;
    arrivals.set(name, []);
    const t0 = performance.now();
    sent.set(name, t0);
    const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name, node_type: 'ethernet_hub' });
    answers.push(performance.now() - t0);
    if (r.status !== 201) throw new Error(`creating ${name} failed: ${r.text}`);
  }
  const seconds = (performance.now() - started) / 1000;
  // Let the last events reach every client.
  const expected = NODES * clients;
  for (let wait = 0; wait < 100 && [...arrivals.values()].reduce((n, a) => n + a.length, 0) < expected; wait++) await new Promise((r) => setTimeout(r, 50));
  for (const ws of sockets) ws.terminate();
  await d.api('DELETE', `/v2/projects/${projectId}`);
  const delays: number[] = [];
  for (const [name, times] of arrivals) for (const at of times) delays.push(at - sent.get(name)!);
  return { clients, seconds, delivered: delays.length, delays, answers };
}

async function main(): Promise<void> {
  daemon = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '34300-34349', EMUCTL_CONSOLE_PORT_RANGE: '20350-20359' } });
  await runCase(daemon, 1); // warm-up
  const counts = [0, ...CLIENT_COUNTS];
  const results = new Map<number, CaseResult[]>(counts.map((c) => [c, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < counts.length; k++) {
      const clients = counts[(round + k) % counts.length];
      results.get(clients)!.push(await runCase(daemon, clients));
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rateOf = (rs: CaseResult[]) => median(rs.map((r) => NODES / r.seconds));
  const baseRate = rateOf(results.get(0)!);

  console.log(`\nNotification fan-out: ${NODES} ethernet_hub nodes created one after the other per case (a fresh project each), ${ROUNDS} rounds interleaved, medians; ${machineLine()}\n`);
  console.log('| clients on the project stream | nodes created/s | vs no client | events delivered/s (all clients) | events lost | call → event median ms | call → event p99 ms | call → answer median ms | call → answer p99 ms |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [clients, rs] of results) {
    const rate = rateOf(rs);
    const delays = summarize(rs.flatMap((r) => r.delays));
    const lost = rs.reduce((n, r) => n + NODES * clients - r.delivered, 0);
    const delivered = median(rs.map((r) => r.delivered / r.seconds));
    const answers = summarize(rs.flatMap((r) => r.answers));
    const cells = clients ? [delivered.toFixed(0), String(lost), ms(delays.p50), ms(delays.p99)] : ['–', '–', '–', '–'];
    console.log(`| ${clients} | ${rate.toFixed(0)} | ${(rate / baseRate).toFixed(2)} | ${cells.join(' | ')} | ${ms(answers.p50)} | ${ms(answers.p99)} |`);
  }
}

async function stop(): Promise<void> {
  if (!daemon) return;
  const timer = setTimeout(() => daemon?.child.kill('SIGKILL'), 10_000);
  await daemon.stop();
  clearTimeout(timer);
  removeHome(daemon.home);
  daemon = undefined;
}

await runBench('the events bench', TIME_LIMIT_MS, main, stop);
