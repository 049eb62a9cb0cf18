// Docker node start latency (issue 19), through the GNS3 API of a real daemon: per run a fresh
// docker node (the busybox test image, --adapters interfaces, default 2), then
//   answer: POST /v2/projects/{id}/nodes/{id}/start until the answer says `started`;
//   up:     until `docker exec <container> ip -o link` shows eth0…ethN-1 with UP and LOWER_UP
//           (polled from the answer on; the time is the end of the first exec that sees them).
// Baselines in the same run: `docker start` of a bare container of the same image (no
// interfaces) until `docker exec` answers in it, and one `docker exec` in a running container
// (the poll's own cost, included in "up"). Rounds interleave the node and the bare container.
// Needs a running Docker engine and root (the daemon makes TAPs); only loopback.
// Usage: npm run build && node dist/bench/docker/start.js [--runs 10] [--adapters 2]
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { testImage } from '../../test/helpers/docker-images.js';
import { numberArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';
import { median, spread } from '../lib/stats.js';
import { machineLine } from '../lib/udpblast.js';

const RUNS = numberArg('runs', 10);
const ADAPTERS = numberArg('adapters', 2);
const ENV = { EMUCTL_UDP_PORT_RANGE: '35400-35599', EMUCTL_CONSOLE_PORT_RANGE: '28400-28499' };
const BARE_LABEL = `emuctl-bench-start=${process.pid}`;

const execFileP = promisify(execFile);
const docker = async (...args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();

let daemon: TestDaemon | undefined;

/** ms since `t0`. */
const since = (t0: number) => performance.now() - t0;

/** Whether `ip -o link` output shows every ethN (N < count) administratively up with a carrier. */
function interfacesUp(ipLink: string, count: number): boolean {
  for (let n = 0; n < count; n++) {
    const flags = new RegExp(`^\\d+: eth${n}(?:@\\S+)?: <([^>]*)>`, 'm').exec(ipLink)?.[1].split(',') ?? [];
    if (!flags.includes('UP') || !flags.includes('LOWER_UP')) return false;
  }
  return true;
}

/** Polls `docker exec` in the container until its interfaces are up: ms from t0 to the end of the exec that saw them, and the execs it took. */
async function untilUp(container: string, t0: number, timeoutMs = 30_000): Promise<{ up: number; polls: number }> {
  let last = '';
  for (let polls = 1; since(t0) < timeoutMs; polls++) {
    try {
      last = await docker('exec', container, 'ip', '-o', 'link');
      if (interfacesUp(last, ADAPTERS)) return { up: since(t0), polls };
    } catch (err) {
      last = (err as Error).message;
    }
  }
  throw new Error(`eth0…eth${ADAPTERS - 1} of ${container} not up within ${timeoutMs} ms; last ip link: ${last}`);
}

interface NodeRun {
  answer: number;
  up: number;
  polls: number;
}

/** One docker node: created, started (timed), deleted. */
async function nodeRun(d: TestDaemon, projectId: string, image: string, i: number): Promise<NodeRun> {
  const created = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: `D${i}`, node_type: 'docker', compute_id: 'local', properties: { image, adapters: ADAPTERS } });
  if (created.status !== 201) throw new Error(`node create: ${created.status} ${created.text}`);
  const node = `/v2/projects/${projectId}/nodes/${created.body.node_id}`;
  try {
    const container = await docker('ps', '-aq', '--no-trunc', '--filter', `label=emuctl.node=${created.body.node_id}`);
    if (!container) throw new Error(`no container labelled emuctl.node=${created.body.node_id}`);
    const t0 = performance.now();
    const started = await d.api('POST', `${node}/start`, {});
    const answer = since(t0);
    if (started.status !== 200 || started.body?.status !== 'started') throw new Error(`node start: ${started.status} ${started.text}`);
    return { answer, ...(await untilUp(container, t0)) };
  } finally {
    await d.api('DELETE', node);
  }
}

interface BareRun {
  start: number;
  execAnswers: number;
  exec: number;
}

/** A bare container of the same image: `docker start` until an exec answers in it, then one exec alone. */
async function bareRun(image: string): Promise<BareRun> {
  const container = await docker('create', '--network', 'none', '--label', BARE_LABEL, '-t', '-i', image, '/bin/sh');
  try {
    const t0 = performance.now();
    await docker('start', container);
    const start = since(t0);
    await docker('exec', container, 'true');
    const execAnswers = since(t0);
    const t1 = performance.now();
    await docker('exec', container, 'ip', '-o', 'link');
    return { start, execAnswers, exec: since(t1) };
  } finally {
    await docker('rm', '-f', container);
  }
}

async function main(): Promise<void> {
  const image = await testImage('host');
  daemon = await startTestDaemon({ env: ENV });
  const project = await daemon.api('POST', '/v2/projects', { name: `bench-docker-start-${process.pid}` });
  if (project.status !== 201) throw new Error(`project create: ${project.status} ${project.text}`);
  const projectId = project.body.project_id as string;
  const nodes: NodeRun[] = [];
  const bares: BareRun[] = [];
  console.log(`Docker node start: ${machineLine()}, Docker ${await docker('version', '--format', '{{.Server.Version}}')}, image ${image}, ${ADAPTERS} adapters, ${RUNS} runs\n`);
  for (let i = 0; i < RUNS; i++) {
    const nodeFirst = i % 2 === 0;
    if (nodeFirst) nodes.push(await nodeRun(daemon, projectId, image, i));
    bares.push(await bareRun(image));
    if (!nodeFirst) nodes.push(await nodeRun(daemon, projectId, image, i));
  }
  await daemon.api('DELETE', `/v2/projects/${projectId}`);

  const ms = (x: number) => x.toFixed(0);
  const floor = median(bares.map((b) => b.execAnswers));
  console.log('| what | median ms (min–max) | × bare docker start + exec |');
  console.log('|---|---:|---:|');
  console.log(`| docker node: POST start → answer \`started\` | ${spread(nodes.map((n) => n.answer), ms)} | ${(median(nodes.map((n) => n.answer)) / floor).toFixed(2)}× |`);
  console.log(`| docker node: POST start → eth0…eth${ADAPTERS - 1} up inside (end of the exec that saw them) | ${spread(nodes.map((n) => n.up), ms)} | ${(median(nodes.map((n) => n.up)) / floor).toFixed(2)}× |`);
  console.log(`| bare container: \`docker start\` returns | ${spread(bares.map((b) => b.start), ms)} | – |`);
  console.log(`| bare container: \`docker start\` → a \`docker exec\` answers in it | ${spread(bares.map((b) => b.execAnswers), ms)} | 1.00× |`);
  console.log(`| one \`docker exec … ip -o link\` in a running container (the poll's cost) | ${spread(bares.map((b) => b.exec), ms)} | – |`);
  console.log(`\n\`docker exec\` polls until the interfaces were seen up, per run: ${nodes.map((n) => n.polls).join(', ')}.`);
  const target = median(nodes.map((n) => n.up));
  console.log(`Target median ≤ 1000 ms (start → interfaces up): ${target <= 1000 ? 'met' : 'not met'} (${ms(target)} ms).`);
}

await runBench('docker start bench', (RUNS * 60 + 900) * 1000, main, async () => {
  await daemon?.stop();
  if (daemon) removeHome(daemon.home);
  const left = await docker('ps', '-aq', '--filter', `label=${BARE_LABEL}`).catch(() => '');
  for (const id of left.split('\n').filter(Boolean)) await docker('rm', '-f', id).catch(() => undefined);
});
