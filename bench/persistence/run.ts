// Persistence at scale (issue 13) and link churn under concurrent clients (issue 11), on the real daemon.
// Nodes are ethernet_switch / ethernet_hub (no processes), so the figures are the controller's and
// the topology file's (group commit, fsync + rename per write), plus the dataplane's UDP tunnels.
//  1. node create cost: one client creates 1,000 nodes one after the other; mean of nodes 901–1,000
//     against nodes 1–100 (target ≤ 1.5×).
//  2. scale: 5,000 switches and 5,000 links (a ring) in one project with --clients concurrent clients;
//     total time (target < 60 s) and the daemon's RSS (target < 500 MB).
//  3. link churn: 50 clients each creating and deleting a link between its own two hubs; p50/p99 of
//     the calls, against 1 client doing the same in the same round.
// Each part runs --rounds rounds (fresh daemon per round), with the load average of each round.
// Usage: npx tsc -p tsconfig.json && flock /tmp/emuctl-tests.lock node dist/bench/persistence/run.js [--rounds 3] [--nodes 5000] [--clients 8]
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startTestDaemon, removeHome, type TestDaemon } from '../../test/helpers/daemon.js';
import { machineLine, ms, quantile } from '../forward/latency.js';
import { stringArg } from '../lib/args.js';

const ROUNDS = Number(stringArg('rounds', '3'));
const SCALE_NODES = Number(stringArg('nodes', '5000'));
const SCALE_CLIENTS = Number(stringArg('clients', '8'));
const CHURN_CLIENTS = 50;
const CHURN_ITERATIONS = 10;
/** Two UDP ports per link: the range holds every tunnel of the scale part (outside the tests' ranges; run under the test lock). */
const UDP_RANGE = `12000-${12000 + 2 * SCALE_NODES + 999}`;

interface Answer {
  status: number;
  body: any;
}

/** One JSON call over a keep-alive agent. */
function call(agent: Agent, base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(base + path, { agent, method, headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function ok(agent: Agent, base: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await call(agent, base, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

const now = () => performance.now();
const median = (v: number[]) => quantile(v, 0.5);
const range = (v: number[], f: (x: number) => string) => `${f(Math.min(...v))}–${f(Math.max(...v))}`;

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

let daemon: TestDaemon | undefined;

async function withDaemon<T>(run: (d: TestDaemon, agent: (sockets: number) => Agent) => Promise<T>): Promise<T> {
  daemon = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: UDP_RANGE } });
  const agents: Agent[] = [];
  try {
    return await run(daemon, (sockets) => {
      const a = new Agent({ keepAlive: true, maxSockets: sockets });
      agents.push(a);
      return a;
    });
  } finally {
    for (const a of agents) a.destroy();
    await daemon.stop();
    removeHome(daemon.home);
    daemon = undefined;
  }
}

/** Part 1: per-create time of nodes 1–100 and 901–1,000, one client. */
async function createCost(): Promise<{ first: number; last: number; load: number }> {
  return withDaemon(async (d, agentOf) => {
    const agent = agentOf(1);
    const pid = (await ok(agent, d.url, 'POST', '/v2/projects', { name: 'cost' })).project_id;
    const times: number[] = [];
    for (let i = 1; i <= 1000; i++) {
      const t0 = now();
      await ok(agent, d.url, 'POST', `/v2/projects/${pid}/nodes`, { name: `SW${i}`, node_type: i % 2 ? 'ethernet_switch' : 'ethernet_hub' });
      times.push(now() - t0);
    }
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    return { first: mean(times.slice(0, 100)), last: mean(times.slice(900, 1000)), load: loadavg()[0] };
  });
}

/** Runs `work(i)` for i in [0, count) on `clients` concurrent workers. */
async function pool(count: number, clients: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < count) await work(next++);
  }));
}

/** Part 2: SCALE_NODES switches and as many links (a ring), SCALE_CLIENTS clients. */
async function scale(): Promise<{ nodesS: number; linksS: number; totalS: number; rss: number; peak: number; fileMb: number; load: number }> {
  return withDaemon(async (d, agentOf) => {
    const agent = agentOf(SCALE_CLIENTS);
    const project = await ok(agent, d.url, 'POST', '/v2/projects', { name: 'scale' });
    const pid = project.project_id;
    const ids: string[] = new Array(SCALE_NODES);
    const t0 = now();
    await pool(SCALE_NODES, SCALE_CLIENTS, async (i) => {
      ids[i] = (await ok(agent, d.url, 'POST', `/v2/projects/${pid}/nodes`, { name: `S${i}`, node_type: 'ethernet_switch' })).node_id;
    });
    const t1 = now();
    await pool(SCALE_NODES, SCALE_CLIENTS, async (i) => {
      await ok(agent, d.url, 'POST', `/v2/projects/${pid}/links`, {
        nodes: [{ node_id: ids[i], adapter_number: 0, port_number: 1 }, { node_id: ids[(i + 1) % SCALE_NODES], adapter_number: 0, port_number: 0 }],
      });
    });
    const t2 = now();
    const file = readFileSync(`${project.path}/${project.filename}`, 'utf8');
    const topology = JSON.parse(file).topology;
    if (topology.nodes.length !== SCALE_NODES || topology.links.length !== SCALE_NODES) throw new Error(`the file holds ${topology.nodes.length} nodes, ${topology.links.length} links`);
    return { nodesS: (t1 - t0) / 1000, linksS: (t2 - t1) / 1000, totalS: (t2 - t0) / 1000, rss: rssMb(d.pid, 'VmRSS'), peak: rssMb(d.pid, 'VmHWM'), fileMb: file.length / 1e6, load: loadavg()[0] };
  });
}

/** Part 3: link create + delete latencies with `clients` clients, each on its own pair of hubs. */
async function churn(d: TestDaemon, agent: Agent, pid: string, hubs: string[], clients: number): Promise<{ create: number[]; remove: number[] }> {
  const create: number[] = [];
  const remove: number[] = [];
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const body = { nodes: [{ node_id: hubs[2 * c], adapter_number: 0, port_number: 0 }, { node_id: hubs[2 * c + 1], adapter_number: 0, port_number: 0 }] };
    for (let i = 0; i < CHURN_ITERATIONS; i++) {
      let t = now();
      const link = await ok(agent, d.url, 'POST', `/v2/projects/${pid}/links`, body);
      create.push(now() - t);
      t = now();
      await ok(agent, d.url, 'DELETE', `/v2/projects/${pid}/links/${link.link_id}`);
      remove.push(now() - t);
    }
  }));
  return { create, remove };
}

async function churnRound(): Promise<{ one: { create: number[]; remove: number[] }; many: { create: number[]; remove: number[] }; load: number }> {
  return withDaemon(async (d, agentOf) => {
    const agent = agentOf(CHURN_CLIENTS);
    const pid = (await ok(agent, d.url, 'POST', '/v2/projects', { name: 'churn' })).project_id;
    const hubs: string[] = [];
    for (let i = 0; i < 2 * CHURN_CLIENTS; i++) hubs.push((await ok(agent, d.url, 'POST', `/v2/projects/${pid}/nodes`, { name: `H${i}`, node_type: 'ethernet_hub' })).node_id);
    const one = await churn(d, agent, pid, hubs, 1);
    const many = await churn(d, agent, pid, hubs, CHURN_CLIENTS);
    return { one, many, load: loadavg()[0] };
  });
}

async function main(): Promise<void> {
  const cost: Awaited<ReturnType<typeof createCost>>[] = [];
  const scales: Awaited<ReturnType<typeof scale>>[] = [];
  const churns: Awaited<ReturnType<typeof churnRound>>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    cost.push(await createCost());
    scales.push(await scale());
    churns.push(await churnRound());
    console.error(`round ${r + 1}: create ${ms(cost[r].first)} / ${ms(cost[r].last)} ms; scale ${scales[r].totalS.toFixed(1)} s, RSS ${scales[r].rss.toFixed(0)} MB; churn p50 ${ms(median(churns[r].many.create))} ms`);
  }
  const f1 = (v: number) => v.toFixed(1);
  const f2 = (v: number) => v.toFixed(2);
  const ratios = cost.map((c) => c.last / c.first);
  console.log(machineLine());
  console.log(`\n| round | load avg | create ms, nodes 1–100 | create ms, nodes 901–1,000 | ratio |\n|---:|---:|---:|---:|---:|`);
  cost.forEach((c, i) => console.log(`| ${i + 1} | ${f2(c.load)} | ${ms(c.first)} | ${ms(c.last)} | ${f2(ratios[i])} |`));
  console.log(`| median [range] | | ${ms(median(cost.map((c) => c.first)))} | ${ms(median(cost.map((c) => c.last)))} | ${f2(median(ratios))} [${range(ratios, f2)}] |`);
  console.log(`\n| round | load avg | ${SCALE_NODES} nodes s | ${SCALE_NODES} links s | total s | RSS MB | peak RSS MB | file MB |\n|---:|---:|---:|---:|---:|---:|---:|---:|`);
  scales.forEach((s, i) => console.log(`| ${i + 1} | ${f2(s.load)} | ${f1(s.nodesS)} | ${f1(s.linksS)} | ${f1(s.totalS)} | ${s.rss.toFixed(0)} | ${s.peak.toFixed(0)} | ${f1(s.fileMb)} |`));
  const tot = scales.map((s) => s.totalS);
  const peaks = scales.map((s) => s.peak);
  console.log(`| median [range] | | | | ${f1(median(tot))} [${range(tot, f1)}] | | ${median(peaks).toFixed(0)} [${range(peaks, (v) => v.toFixed(0))}] | |`);
  console.log(`\n| round | load avg | 1 client: create p50 / p99 ms | delete p50 / p99 | ${CHURN_CLIENTS} clients: create p50 / p99 ms | delete p50 / p99 |\n|---:|---:|---:|---:|---:|---:|`);
  const pp = (v: number[]) => `${ms(quantile(v, 0.5))} / ${ms(quantile(v, 0.99))}`;
  churns.forEach((c, i) => console.log(`| ${i + 1} | ${f2(c.load)} | ${pp(c.one.create)} | ${pp(c.one.remove)} | ${pp(c.many.create)} | ${pp(c.many.remove)} |`));
  const p50s = churns.map((c) => quantile([...c.many.create, ...c.many.remove], 0.5));
  console.log(`\n${CHURN_CLIENTS} clients, create and delete together: p50 ${ms(median(p50s))} ms [${range(p50s, ms)}]`);
}

main().catch(async (err) => {
  console.error(err);
  if (daemon) {
    await daemon.stop();
    removeHome(daemon.home);
  }
  process.exit(1);
});
