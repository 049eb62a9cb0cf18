// Lab-as-code bench (issue 12): `lab up` of a 50-node / 60-link file (10 switches, 40 VPCS),
// wall time and requests sent, with every node on the controller's own compute and with every
// node on a second daemon registered as a compute. Baseline in the same run: the same lab built
// by the bare API calls a script would make (no reading, no planning, no waiting), with the same
// client. Also the second, no-op `lab up` and `lab down`. Rounds interleave the cases; medians
// and ranges are printed.
// Usage: npm run build && node dist/bench/lab-up/run.js [--rounds 3]
import { createApiClient } from '../../src/client/got-client.js';
import type { ApiClient } from '../../src/client/api.js';
import { createLink, listLinks } from '../../src/client/links.js';
import { writeNodeFile, VPCS_STARTUP_FILE } from '../../src/client/node-files.js';
import { createNode, listNodes, nodeAction } from '../../src/client/nodes.js';
import { createProject, deleteProject } from '../../src/client/projects.js';
import { addCompute } from '../../src/client/computes.js';
import { applyPlan } from '../../src/lab/apply.js';
import { parseLab } from '../../src/lab/parse.js';
import { planLab } from '../../src/lab/plan.js';
import { readLabState } from '../../src/lab/state.js';
import { nodeCreateBody, vpcsScriptOf } from '../../src/lab/node-bodies.js';
import type { LabSpec } from '../../src/lab/model.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { machineLine } from '../forward/latency.js';
import { stringArg } from '../lib/args.js';

const ROUNDS = Number(stringArg('rounds', '3'));
const SWITCHES = 10;
const PCS = 40;

/** The bench lab: 40 PCs, 4 on each of 10 switches; the switches in a chain (VLAN 1) and 11 more switch links, each alone in a VLAN of its own so that no VLAN has a loop. */
export function benchLabFile(name: string, compute: string): string {
  const lines = [`name: ${name}`, `defaults: {compute: ${compute}}`, 'nodes:'];
  const extra: [number, number, number][] = [];
  for (let k = 0; k < 11; k++) extra.push([(k % SWITCHES) + 1, ((k + 3) % SWITCHES) + 1, 100 + k]);
  const ports = new Map<number, string[]>();
  const used = new Map<number, number>();
  const nextPort = (sw: number) => {
    const p = (used.get(sw) ?? 4);
    used.set(sw, p + 1);
    return p;
  };
  const links: string[] = [];
  for (const [a, b, vlan] of extra) {
    const [pa, pb] = [nextPort(a), nextPort(b)];
    ports.set(a, [...(ports.get(a) ?? []), `${pa}: {vlan: ${vlan}}`]);
    ports.set(b, [...(ports.get(b) ?? []), `${pb}: {vlan: ${vlan}}`]);
    links.push(`  - [SW${a}:0/${pa}, SW${b}:0/${pb}]`);
  }
  for (let s = 1; s <= SWITCHES; s++) lines.push(`  SW${s}: {type: ethernet_switch, port_count: 16${ports.has(s) ? `, ports: {${ports.get(s)!.join(', ')}}` : ''}}`);
  for (let i = 1; i <= PCS; i++) lines.push(`  PC${i}: {type: vpcs, ip: 10.50.${Math.floor(i / 250)}.${i % 250}/16}`);
  lines.push('links:');
  for (let i = 1; i <= PCS; i++) links.push(`  - [PC${i}:0/0, SW${((i - 1) % SWITCHES) + 1}:0/${Math.floor((i - 1) / SWITCHES)}]`);
  for (let s = 1; s < SWITCHES; s++) links.push(`  - [SW${s}:0/15, SW${s + 1}:0/14]`);
  return [...lines, ...links, ''].join('\n');
}

/** The client, counting the requests it sends. */
function counting(api: ApiClient): ApiClient & { count: number } {
  const counted = { count: 0 } as ApiClient & { count: number };
  const wrap = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) => {
    counted.count++;
    return f(...a);
  };
  return Object.assign(counted, {
    url: api.url,
    get: wrap(api.get.bind(api)),
    post: wrap(api.post.bind(api)),
    put: wrap(api.put.bind(api)),
    delete: wrap(api.delete.bind(api)),
    getText: wrap(api.getText.bind(api)),
    postText: wrap(api.postText.bind(api)),
  }) as ApiClient & { count: number };
}

interface Measure {
  ms: number;
  requests: number;
}

async function labUp(d: TestDaemon, spec: LabSpec): Promise<Measure> {
  const api = counting(createApiClient({ url: d.url, timeoutMs: 60_000 }));
  const started = performance.now();
  const state = await readLabState(api, spec.name);
  const plan = planLab(spec, state);
  if (plan.steps.length) await applyPlan(plan, { api, server: { url: d.url }, project: state.project }, { step: (_text, task) => task() });
  return { ms: performance.now() - started, requests: api.count };
}

async function labDown(d: TestDaemon, name: string): Promise<Measure> {
  const api = counting(createApiClient({ url: d.url, timeoutMs: 60_000 }));
  const started = performance.now();
  const project = (await api.get<{ name: string; project_id: string }[]>('projects')).find((p) => p.name === name)!;
  const nodes = await listNodes(api, project.project_id);
  await Promise.all(nodes.filter((n) => n.node_type === 'vpcs').map((n) => nodeAction(api, project.project_id, n.node_id, 'stop')));
  await deleteProject(api, project.project_id);
  return { ms: performance.now() - started, requests: api.count };
}

/** The same lab by bare API calls: project, nodes, scripts, links, starts; nothing read, nothing waited for beyond the answers. */
async function bareCalls(d: TestDaemon, spec: LabSpec, computeId: string): Promise<Measure> {
  const api = counting(createApiClient({ url: d.url, timeoutMs: 60_000 }));
  const started = performance.now();
  const project = await createProject(api, { name: spec.name });
  const ids = new Map<string, string>();
  for (const node of spec.nodes) {
    const created = await createNode(api, project.project_id, nodeCreateBody(node, computeId));
    ids.set(node.name, created.node_id);
    if (node.type === 'vpcs') await writeNodeFile(api, project.project_id, created.node_id, VPCS_STARTUP_FILE, vpcsScriptOf(node));
  }
  for (const link of spec.links) {
    await createLink(api, project.project_id, { nodes: link.ends.map((e) => ({ node_id: ids.get(e.node)!, adapter_number: e.adapter, port_number: e.port })) });
  }
  await Promise.all(spec.nodes.filter((n) => n.type === 'vpcs').map((n) => nodeAction(api, project.project_id, ids.get(n.name)!, 'start')));
  const ms = performance.now() - started;
  const requests = api.count;
  if ((await listLinks(api, project.project_id)).length !== spec.links.length) throw new Error('bare calls: links missing');
  await labDown(d, spec.name);
  return { ms, requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[], digits = 0) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function main(): Promise<void> {
  const controller = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '37000-37999', EMUCTL_CONSOLE_PORT_RANGE: '28100-28199' } });
  const compute = await startTestDaemon({ flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '38000-38999', EMUCTL_CONSOLE_PORT_RANGE: '28200-28299' } });
  try {
    const remote = await addCompute(createApiClient({ url: controller.url }), { name: 'bench-b', protocol: 'http', host: '127.0.0.1', port: compute.port });
    const cases = [
      { label: 'local compute', compute: 'local', computeId: 'local' },
      { label: 'second daemon', compute: 'bench-b', computeId: remote.compute_id },
    ];
    const results = new Map(cases.map((c) => [c.label, { up: [] as Measure[], again: [] as Measure[], down: [] as Measure[], bare: [] as Measure[] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of round % 2 ? [...cases].reverse() : cases) {
        const spec = parseLab(benchLabFile(`bench-${round}-${c.compute}`, c.compute), 'bench.yml');
        if (spec.nodes.length !== 50 || spec.links.length !== 60) throw new Error(`bench lab has ${spec.nodes.length} nodes, ${spec.links.length} links`);
        const r = results.get(c.label)!;
        r.bare.push(await bareCalls(controller, parseLab(benchLabFile(`bare-${round}-${c.compute}`, c.compute), 'bench.yml'), c.computeId));
        r.up.push(await labUp(controller, spec));
        r.again.push(await labUp(controller, spec));
        r.down.push(await labDown(controller, spec.name));
      }
    }
    console.log(machineLine());
    console.log(`\n${ROUNDS} rounds; median (range)\n`);
    console.log('| nodes on | lab up s | requests | bare API calls s | requests | lab up × bare | second lab up (no-op) s | requests | lab down s |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const c of cases) {
      const r = results.get(c.label)!;
      const ratio = r.up.map((m, i) => m.ms / r.bare[i].ms);
      console.log(`| ${c.label} | ${fmt(r.up.map((m) => m.ms / 1000), 2)} | ${fmt(r.up.map((m) => m.requests))} | ${fmt(r.bare.map((m) => m.ms / 1000), 2)} | ${fmt(r.bare.map((m) => m.requests))} | ${fmt(ratio, 2)} | ${fmt(r.again.map((m) => m.ms / 1000), 2)} | ${fmt(r.again.map((m) => m.requests))} | ${fmt(r.down.map((m) => m.ms / 1000), 2)} |`);
    }
  } finally {
    await Promise.all([controller.stop(), compute.stop()]);
    removeHome(controller.home);
    removeHome(compute.home);
  }
}

if (process.argv[1]?.endsWith('run.js')) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
