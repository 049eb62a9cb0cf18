// N FRR routers in a ring (issue 19), through the CLI as a user runs it, on a real daemon:
//  1. writes a lab file (or, for the generated variant, `emuctl lab generate ring --routers N --routing ospf`) (labs as code: `type: docker` nodes with image, adapters, cmd and startup
//     files) of --routers N routers R1…RN, Ri eth0 — R(i+1) eth1, OSPF area 0 on every link
//     (point-to-point, hello 1 s, dead 4 s), each router a loopback 198.18.0.i/32 in OSPF;
//  2. `emuctl lab up FILE`, then polls every router's kernel tables (/proc/PID/net/route and fib_trie of its
//     first process: no process started in or for it) until each holds all N loopbacks: time from the start of `lab up`;
//  3. RSS per router (the sum of VmRSS of the processes in its container's memory cgroup, and
//     the cgroup's usage: memory.current, or memory.usage_in_bytes on cgroup v1) and the daemon's RSS;
//  4. `emuctl lab down NAME`, timed, then checks nothing is left: no container labelled with the
//     project, no new host interface named after one of its nodes, no socket of the daemon's
//     process in its UDP or console port ranges.
// Needs a running Docker engine and root; only loopback and the 198.18.0.0/15 addresses inside
// the containers. Usage: npm run build && node dist/bench/docker/ring.js [--routers 50,100,200] [--variants hand,generated] [--timeout 300] [--concurrency N] [--inspect N]
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FRR_LAB_START, FRR_LAB_START_COMMAND } from '../../src/offline-images/recipes.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { testImage } from '../../test/helpers/docker-images.js';
import { numberArg, stringArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';
import { median, spread } from '../lib/stats.js';
import { machineLine, sleep } from '../lib/udpblast.js';
import { memoryCgroup } from '../lib/cgroup-memory.js';

/** `--routers 50,100,200`: one lab after the other on the same daemon, a table for each and a summary. */
const SIZES = stringArg('routers', '50').split(',').map(Number);
/**
 * `--variants hand,generated`: at each size, the hand-written ring (this file's frr.conf, daemons file
 * and start script) and the generated one (`emuctl lab generate ring --routers N --routing ospf`), one after the other.
 */
const VARIANTS = stringArg('variants', 'hand,generated').split(',') as Variant[];
type Variant = 'hand' | 'generated';
/** `--concurrency N` is passed to `lab up` (nodes started at once); without it, lab up's default. */
const CONCURRENCY = stringArg('concurrency', '');
const TIMEOUT_S = numberArg('timeout', 300);
/** `--inspect N`: when the lab does not converge, what N of the routers still short hold (their daemons, addresses, OSPF, logs), before cleanup. */
const INSPECT = numberArg('inspect', 0);
// Above the kernel's ephemeral range (32768-60999), clear of the test files' ranges: 200 routers take 400 console ports and 400 UDP ports.
const UDP_RANGE = [63000, 64999] as const;
const CONSOLE_RANGE = [61000, 62999] as const;
const ENV = { EMUCTL_UDP_PORT_RANGE: UDP_RANGE.join('-'), EMUCTL_CONSOLE_PORT_RANGE: CONSOLE_RANGE.join('-') };
const CLI = fileURLToPath(new URL('../../../bin/emuctl.js', import.meta.url));
let ROUTERS = SIZES[0]!;
let VARIANT: Variant = VARIANTS[0]!;
let LAB = `ring${ROUTERS}-${process.pid}`;
/** The loopback prefixes every router must hold (`a.b.c.d/32`). */
let LOOPBACKS: string[] = [];

const execFileP = promisify(execFile);
const sh = async (cmd: string, args: string[], timeoutMs = 120_000) => (await execFileP(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })).stdout;

let daemon: TestDaemon | undefined;
let labDir: string | undefined;

const loopback = (i: number) => `198.18.${Math.floor(i / 256)}.${i % 256}`;
/** The /30 of the link from Ri (eth0, .1) to its successor (eth1, .2). */
const linkNet = (i: number) => `198.19.${Math.floor(i / 64)}.${(i % 64) * 4}`;
const plus = (net: string, n: number) => net.replace(/\d+$/, (last) => String(Number(last) + n));

function frrConf(i: number): string {
  const prev = i === 1 ? ROUTERS : i - 1;
  const ospf = [' ip ospf area 0', ' ip ospf network point-to-point', ' ip ospf hello-interval 1', ' ip ospf dead-interval 4'];
  return [
    `! R${i} of the ${ROUTERS}-router ring bench`,
    'frr defaults traditional',
    `hostname R${i}`,
    'service integrated-vtysh-config',
    '!',
    'interface lo',
    ` ip address ${loopback(i)}/32`,
    ' ip ospf area 0',
    '!',
    'interface eth0',
    ` description to R${i === ROUTERS ? 1 : i + 1}`,
    ` ip address ${plus(linkNet(i), 1)}/30`,
    ...ospf,
    '!',
    'interface eth1',
    ` description to R${prev}`,
    ` ip address ${plus(linkNet(prev), 2)}/30`,
    ...ospf,
    '!',
    'router ospf',
    ` ospf router-id ${loopback(i)}`,
    ' passive-interface lo',
    '!',
  ].join('\n') + '\n';
}

/** The lab file and the routers' startup files, in a temp directory; returns the file's path. */
function writeLab(image: string): string {
  labDir = mkdtempSync(join(tmpdir(), 'emuctl-bench-ring-'));
  writeFileSync(join(labDir, 'daemons'), 'ospfd=yes\nvtysh_enable=yes\nzebra_options="  -A 127.0.0.1 -s 90000000"\nospfd_options="  -A 127.0.0.1"\nstaticd_options="-A 127.0.0.1"\n'
    // watchfrr loads frr.conf with a job it kills after -T seconds (20 by default): under load the job needs longer.
    + 'watchfrr_options="-T 600"\n');
  writeFileSync(join(labDir, 'vtysh.conf'), 'service integrated-vtysh-config\n');
  writeFileSync(join(labDir, 'emuctl-start.sh'), FRR_LAB_START);
  LOOPBACKS = Array.from({ length: ROUTERS }, (_, k) => `${loopback(k + 1)}/32`);
  const lines = [`name: ${LAB}`, 'nodes:'];
  for (let i = 1; i <= ROUTERS; i++) {
    mkdirSync(join(labDir, `r${i}`));
    writeFileSync(join(labDir, `r${i}`, 'frr.conf'), frrConf(i));
    lines.push(
      `  R${i}:`,
      '    type: docker',
      `    image: ${image}`,
      '    adapters: 2',
      // emuctl's start script (as the generated labs and the example): starts the daemons, loads frr.conf, hands them to watchfrr.
      `    cmd: ${FRR_LAB_START_COMMAND}`,
      '    files:',
      `      /etc/frr/frr.conf: r${i}/frr.conf`,
      '      /etc/frr/daemons: daemons',
      '      /etc/frr/vtysh.conf: vtysh.conf',
      '      /etc/frr/emuctl-start.sh: emuctl-start.sh',
    );
  }
  lines.push('links:');
  for (let i = 1; i <= ROUTERS; i++) lines.push(`  - [R${i}:eth0, R${i === ROUTERS ? 1 : i + 1}:eth1]`);
  const file = join(labDir, `${LAB}.yml`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** The generated ring: `emuctl lab generate ring`, its loopbacks read from `emuctl lab config`. */
async function writeGeneratedLab(image: string): Promise<string> {
  labDir = mkdtempSync(join(tmpdir(), 'emuctl-bench-gring-'));
  const file = join(labDir, `${LAB}.yml`);
  await emuctl('-q', 'lab', 'generate', 'ring', '--routers', String(ROUTERS), '--routing', 'ospf', '--image', image, '-o', file);
  // The generated lab's name is ring-N: rename it to this run's name.
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^name: .*$/m, `name: ${LAB}`));
  const config = await emuctl('lab', 'config', file);
  LOOPBACKS = [...config.matchAll(/^interface lo\n ip address (\S+\/32)$/gm)].map((m) => m[1]!);
  if (LOOPBACKS.length !== ROUTERS) throw new Error(`lab config shows ${LOOPBACKS.length} loopbacks for ${ROUTERS} routers`);
  return file;
}

/** Runs the CLI against the daemon; rejects with its stderr when it fails. */
async function emuctl(...args: string[]): Promise<string> {
  try {
    return await sh(process.execPath, [CLI, '--url', daemon!.url, '--no-color', ...args], 900_000);
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`emuctl ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

const containersOf = async (projectId: string) => (await sh('docker', ['ps', '-aq', '--no-trunc', '--filter', `label=emuctl.project=${projectId}`])).split('\n').filter(Boolean);

/** Each polled router's last failure to answer (the poll counts it as holding nothing). */
const pollErrors = new Map<string, string>();

/**
 * How many of the ring's loopbacks the router holds, read from its network namespace's kernel tables through
 * /proc (no process started, so the poll takes no CPU from the routers it waits for): a /32 route to every other
 * router's loopback in the main table (installed by zebra from OSPF), and its own loopback as a local address.
 */
async function loopbacksHeld(pid: number): Promise<number> {
  const [routes, trie] = await Promise.all([readFile(`/proc/${pid}/net/route`, 'utf8'), readFile(`/proc/${pid}/net/fib_trie`, 'utf8')]);
  const held = new Set<string>();
  for (const line of routes.split('\n').slice(1)) {
    const f = line.split('\t');
    if (f.length < 8 || f[7]!.trim() !== 'FFFFFFFF') continue;
    const d = parseInt(f[1]!, 16);
    held.add(`${d & 255}.${(d >>> 8) & 255}.${(d >>> 16) & 255}.${d >>> 24}/32`);
  }
  for (const m of trie.matchAll(/\|-- (\S+)\n\s+\/32 host LOCAL/g)) held.add(`${m[1]}/32`);
  return LOOPBACKS.filter((prefix) => held.has(prefix)).length;
}

/** The PID of each container's first process: /proc/PID/net is its network namespace. */
async function pidsOf(containers: string[]): Promise<Map<string, number>> {
  const out = await sh('docker', ['inspect', '-f', '{{.Id}} {{.State.Pid}}', ...containers]);
  return new Map(out.trim().split('\n').map((line) => line.split(' ')).map(([id, pid]) => [id!, Number(pid)]));
}

/** Polls the routers until every one holds every loopback; ms from t0 when the last one did. */
async function untilConverged(containers: string[], t0: number): Promise<{ all: number; first: number; sweep: number }> {
  const pids = await pidsOf(containers);
  const pending = new Set(containers);
  let first = NaN;
  let sweep = NaN;
  const held = new Map<string, number>();
  while (pending.size) {
    if (performance.now() - t0 > TIMEOUT_S * 1000) {
      const short = [...pending].map((c) => `${c.slice(0, 12)} ${held.get(c) ?? '?'}/${ROUTERS}`);
      const errors = [...pending].filter((c) => pollErrors.has(c));
      console.log(`${pending.size} routers short; ${errors.length} of them did not answer the last poll`);
      for (const c of errors.slice(0, 5)) console.log(`  ${c.slice(0, 12)}: ${pollErrors.get(c)}`);
      if (INSPECT) await inspect([...pending].slice(0, INSPECT));
      throw new Error(`not converged after ${TIMEOUT_S} s: ${pending.size} routers short: ${short.slice(0, 8).join(', ')}`);
    }
    const batch = [...pending];
    const sweepStart = performance.now();
    for (let i = 0; i < batch.length; i += 8) {
      await Promise.all(batch.slice(i, i + 8).map(async (c) => {
        const n = await loopbacksHeld(pids.get(c) ?? 0).then((k) => (pollErrors.delete(c), k), (err: Error) => (pollErrors.set(c, err.message.split('\n').slice(0, 3).join(' | ')), 0));
        held.set(c, n);
        if (n === ROUTERS) {
          pending.delete(c);
          if (Number.isNaN(first)) first = performance.now() - t0;
        }
      }));
    }
    sweep = performance.now() - sweepStart;
    const zero = [...pending].filter((c) => !held.get(c)).length;
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${containers.length - pending.size}/${containers.length} routers hold every loopback, ${zero} hold none (${[...pending].filter((c) => pollErrors.has(c)).length} did not answer), load ${loadNow()}`);
    if (pending.size) await sleep(500);
  }
  return { all: performance.now() - t0, first, sweep };
}

/** Prints what is inside each router: its processes, addresses, OSPF neighbours and interfaces, its log. */
async function inspect(containers: string[]): Promise<void> {
  const probes: [string, string[]][] = [
    ['processes', ['ps', '-eo', 'pid,rss,etime,time,args']],
    ['addresses', ['ip', '-br', 'addr']],
    ['running config', ['vtysh', '-c', 'show running-config']],
    ['ospf neighbours', ['vtysh', '-c', 'show ip ospf neighbor']],
    ['ospf interfaces', ['vtysh', '-c', 'show ip ospf interface']],
    ['routes', ['vtysh', '-c', 'show ip route']],
  ];
  for (const c of containers) {
    console.log(`\n=== router ${c.slice(0, 12)} ===`);
    for (const [what, cmd] of probes) {
      const out = await sh('docker', ['exec', c, ...cmd], 60_000).catch((err: Error & { stderr?: string }) => `FAILED: ${err.stderr?.trim() || err.message}`);
      console.log(`--- ${what}\n${out.trim().split('\n').slice(0, 40).join('\n')}`);
    }
    const logs = await execFileP('docker', ['logs', '--tail', '40', c], { timeout: 60_000 }).then((r) => r.stdout + r.stderr, (err: Error) => `FAILED: ${err.message}`);
    console.log(`--- docker logs (tail)\n${logs.trim()}`);
  }
}

/** KiB: the VmRSS of every process in the container's memory cgroup, summed, and the cgroup's usage. */
async function routerMemory(container: string): Promise<{ rssKb: number; cgroupKb: number }> {
  const pid = (await sh('docker', ['inspect', '-f', '{{.State.Pid}}', container])).trim();
  const { dir, usage } = memoryCgroup(pid);
  let rssKb = 0;
  for (const p of readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean)) {
    try {
      rssKb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return { rssKb, cgroupKb: Number(readFileSync(`${dir}/${usage}`, 'utf8')) / 1024 };
}

const hostInterfaces = () => new Set(readdirSync('/sys/class/net'));
const daemonRssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${daemon!.pid}/status`, 'utf8'))![1]) / 1024;

/** The daemon's own sockets (ss lines) on a port of its UDP or console range. */
async function portsInUse(): Promise<string[]> {
  const inRange = (line: string, [lo, hi]: readonly [number, number]) => {
    const local = line.trim().split(/\s+/)[3] ?? '';
    const port = Number(local.slice(local.lastIndexOf(':') + 1));
    return port >= lo && port <= hi;
  };
  const own = (l: string) => l.includes(`pid=${daemon!.pid},`);
  const udp = (await sh('ss', ['-Huanp'])).split('\n').filter((l) => own(l) && inRange(l, UDP_RANGE));
  const tcp = (await sh('ss', ['-Htanp'])).split('\n').filter((l) => own(l) && inRange(l, CONSOLE_RANGE));
  return [...udp, ...tcp];
}

/** One row of the summary. */
interface SizeResult {
  routers: number;
  variant: Variant;
  loadBefore: string;
  up: number;
  converged: number;
  rssMiB: number;
  cgroupMiB: number;
  daemonMB: number;
  loadUp: string;
  down: number;
  left: number;
}
const results: SizeResult[] = [];
const loadNow = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main(): Promise<void> {
  if (SIZES.some((n) => !Number.isInteger(n) || n < 3 || n > 250)) throw new Error('--routers must be sizes 3…250, comma-separated');
  if (!VARIANTS.length || VARIANTS.some((v) => v !== 'hand' && v !== 'generated')) throw new Error('--variants must be hand, generated or both, comma-separated');
  const image = await testImage('frr');
  daemon = await startTestDaemon({ env: ENV });
  for (const size of SIZES) {
    for (const variant of VARIANTS) {
      ROUTERS = size;
      VARIANT = variant;
      LAB = `${variant === 'hand' ? 'ring' : 'gring'}${ROUTERS}-${process.pid}`;
      await runSize(image);
      if (labDir) rmSync(labDir, { recursive: true, force: true });
      labDir = undefined;
    }
  }
  const s = (ms: number) => (ms / 1000).toFixed(1);
  console.log('\n| routers | ring | load before | `lab up` returns | every router holds every loopback | RSS per router (median) | cgroup per router (median) | daemon RSS | load with lab up | `lab down` | left |');
  console.log('|---:|---|---|---:|---:|---:|---:|---:|---|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.routers} | ${r.variant} | ${r.loadBefore} | ${s(r.up)} s | ${s(r.converged)} s | ${r.rssMiB.toFixed(1)} MiB | ${r.cgroupMiB.toFixed(1)} MiB | ${r.daemonMB.toFixed(1)} MB | ${r.loadUp} | ${s(r.down)} s | ${r.left} |`);
  }
}

async function runSize(image: string): Promise<void> {
  const loadBefore = loadNow();
  const file = VARIANT === 'hand' ? writeLab(image) : await writeGeneratedLab(image);
  const before = hostInterfaces();
  const portsBefore = await portsInUse();
  console.log(`\nFRR ring: ${machineLine()}, Docker ${(await sh('docker', ['version', '--format', '{{.Server.Version}}'])).trim()}, image ${image}, ${ROUTERS} routers (${VARIANT === 'hand' ? 'hand-written' : 'generated'} ring), load average ${loadBefore}\n`);

  const t0 = performance.now();
  await emuctl('-q', 'lab', 'up', file, ...(CONCURRENCY ? ['--concurrency', CONCURRENCY] : []));
  const upReturned = performance.now() - t0;
  const project = ((await daemon!.api('GET', '/v2/projects')).body as { name: string; project_id: string }[]).find((p) => p.name === LAB);
  if (!project) throw new Error(`lab up made no project ${LAB}`);
  const containers = await containersOf(project.project_id);
  if (containers.length !== ROUTERS) throw new Error(`${containers.length} containers for ${ROUTERS} routers`);
  const converged = await untilConverged(containers, t0);

  const memory = await Promise.all(containers.map(routerMemory));
  // Host interface names of a node carry the first 8 hex digits of its id (as emuctl names them).
  const nodeTags = ((await daemon!.api('GET', `/v2/projects/${project.project_id}/nodes`)).body as { node_id: string }[]).map((n) => n.node_id.replace(/-/g, '').slice(0, 8));
  const daemonMb = daemonRssMb();
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

  const t1 = performance.now();
  await emuctl('-q', 'lab', 'down', LAB);
  const down = performance.now() - t1;
  const leftContainers = await containersOf(project.project_id);
  const newInterfaces = [...hostInterfaces()].filter((i) => !before.has(i));
  const leftInterfaces = newInterfaces.filter((i) => nodeTags.some((tag) => i.includes(tag)));
  const othersInterfaces = newInterfaces.filter((i) => !leftInterfaces.includes(i));
  const leftPorts = (await portsInUse()).filter((l) => !portsBefore.includes(l));

  const s = (ms: number) => (ms / 1000).toFixed(1);
  const mib = (kb: number) => (kb / 1024).toFixed(1);
  console.log('| what | measured | target |');
  console.log('|---|---:|---|');
  console.log(`| \`lab up\` returns (nodes created, linked, started) | ${s(upReturned)} s | – |`);
  console.log(`| \`lab up\` → first router holding all ${ROUTERS} loopbacks | ${s(converged.first)} s | – |`);
  console.log(`| \`lab up\` → every router holding all ${ROUTERS} loopbacks | ${s(converged.all)} s | < 120 s: ${converged.all < 120_000 ? 'met' : 'not met'} |`);
  console.log(`| duration of the last poll of the routers still short (the figure above can be late by up to one poll and 0.5 s) | ${s(converged.sweep)} s | – |`);
  console.log(`| RSS per router, processes in its cgroup (median, min–max) | ${spread(memory.map((m) => m.rssKb), mib)} MiB | – |`);
  console.log(`| memory cgroup usage per router (page cache included) (median, min–max) | ${spread(memory.map((m) => m.cgroupKb), mib)} MiB | – |`);
  console.log(`| daemon RSS with the lab up | ${daemonMb.toFixed(1)} MB | – |`);
  console.log(`| \`lab down\` | ${s(down)} s | < 30 s: ${down < 30_000 ? 'met' : 'not met'} |`);
  console.log(`| left after \`lab down\`: containers / host interfaces named after the lab's nodes / sockets of the daemon in its port ranges | ${leftContainers.length} / ${leftInterfaces.length} / ${leftPorts.length} | 0 / 0 / 0: ${leftContainers.length + leftInterfaces.length + leftPorts.length === 0 ? 'met' : 'not met'} |`);
  console.log(`\nload average with the lab up: ${load}; median RSS ${mib(median(memory.map((m) => m.rssKb)))} MiB per router.`);
  if (leftInterfaces.length) console.log(`host interfaces left: ${leftInterfaces.join(' ')}`);
  if (othersInterfaces.length) console.log(`new host interfaces not named after the lab's nodes (other work on the machine): ${othersInterfaces.join(' ')}`);
  if (leftPorts.length) console.log(`sockets left:\n${leftPorts.join('\n')}`);
  if (leftContainers.length) console.log(`containers left: ${leftContainers.join(' ')}`);
  results.push({ routers: ROUTERS, variant: VARIANT, loadBefore, up: upReturned, converged: converged.all, rssMiB: median(memory.map((m) => m.rssKb)) / 1024,
    cgroupMiB: median(memory.map((m) => m.cgroupKb)) / 1024, daemonMB: daemonMb, loadUp: load, down, left: leftContainers.length + leftInterfaces.length + leftPorts.length });
}

await runBench('docker ring bench', (TIMEOUT_S + 1200) * 1000 * SIZES.length, main, async () => {
  const projects = daemon ? ((await daemon.api('GET', '/v2/projects').catch(() => undefined))?.body as { project_id: string; name: string }[] | undefined) : undefined;
  const project = projects?.find((p) => p.name === LAB);
  if (project) await daemon!.api('DELETE', `/v2/projects/${project.project_id}`).catch(() => undefined);
  await daemon?.stop();
  if (daemon) removeHome(daemon.home);
  if (project) for (const c of await containersOf(project.project_id).catch(() => [])) await sh('docker', ['rm', '-f', c]).catch(() => undefined);
  if (labDir) rmSync(labDir, { recursive: true, force: true });
});
