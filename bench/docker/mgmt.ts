// The management network at scale (issue 29), through the CLI as a user runs it, on a real daemon.
// For each size of --nodes (20,100), in one run and on one daemon:
//  1. baseline: a lab of N docker nodes of the ssh test image WITHOUT `mgmt:`: `lab up` timed; once
//     every container's sshd runs (read from the host, nothing contacts the node), the cgroup memory
//     and process RSS of each container and the daemon's RSS; `lab down` timed, then what is left;
//  2. the same lab WITH `mgmt: {}` (--mgmt sets the value): the same figures, and from the start of
//     `lab up`: every node answering `ssh -F <lab inventory --format ssh-config> NODE true` (each node
//     polled until it answers, --ssh-parallel at a time), then `ansible -i <lab inventory --format
//     ansible> all -m ping` succeeding on N of N (run again until it does), each within --timeout s of the
//     previous step (a node that does not make it is counted, not fatal: the table says k of N);
//  3. `lab down`, then what is left: containers of the project, new host interfaces named after the
//     project or its nodes, the project's management bridge, iptables lines of its management chain,
//     dnsmasq processes bound to its bridge.
// Then a markdown table per size and the management interface's cost per node against the baseline.
// Needs a running Docker engine, root, ssh and ansible; traffic only to the labs' management bridges
// (addresses from --mgmt-range) and loopback.
// Usage: npm run build && node dist/bench/docker/mgmt.js [--nodes 20,100] [--timeout 600] [--ssh-parallel 16]
//   [--mgmt '{}'] [--mgmt-range 198.19.0.0/18] [--udp-range 65250-65499] [--console-range 65000-65249] [--concurrency N]
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { testImage } from '../../test/helpers/docker-images.js';
import { numberArg, stringArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';
import { median } from '../lib/stats.js';
import { machineLine, sleep } from '../lib/udpblast.js';
import { ansiblePongs, clean, reachedAll, interfacesLeft, mgmtRules, parseRange, parseSizes, reportTables, type LabRun } from './mgmt-report.js';
import { memoryCgroup } from '../lib/cgroup-memory.js';

const SIZES = parseSizes(stringArg('nodes', '20'));
const TIMEOUT_S = numberArg('timeout', 600);
const SSH_PARALLEL = numberArg('ssh-parallel', 16);
const MGMT = stringArg('mgmt', '{}');
const CONCURRENCY = stringArg('concurrency', '');
// Above the kernel's ephemeral range (32768-60999) and the ring bench's (61000-64999), clear of the test files': 250 nodes need 250 consoles.
const UDP_RANGE = parseRange(stringArg('udp-range', '65250-65499'), 'udp-range');
const CONSOLE_RANGE = parseRange(stringArg('console-range', '65000-65249'), 'console-range');
// Clear of the test files' management ranges (198.19.64.0/18, 198.19.128.0/17).
const MGMT_RANGE = stringArg('mgmt-range', '198.19.0.0/18');
const DAEMON_ENV = { EMUCTL_UDP_PORT_RANGE: UDP_RANGE.join('-'), EMUCTL_CONSOLE_PORT_RANGE: CONSOLE_RANGE.join('-'), EMUCTL_MGMT_RANGE: MGMT_RANGE };
const CLI = fileURLToPath(new URL('../../../bin/emuctl.js', import.meta.url));

let daemon: TestDaemon | undefined;
let work: string | undefined;
let cliEnv: NodeJS.ProcessEnv = {};
const labsUp = new Set<string>();

interface Run { code: number; stdout: string; stderr: string }

/** Runs a program; resolves with its exit code and output whatever it is. */
function run(command: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr: stderr || (err && typeof err.code !== 'number' ? err.message : '') });
    });
  });
}

/** A program's stdout; rejects with its stderr when it fails. */
async function sh(command: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const r = await run(command, args, timeoutMs);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr.trim() || `exit ${r.code}`}`);
  return r.stdout;
}

/** The CLI against the bench's daemon, with the bench's own CLI home (the labs' keys and known_hosts). */
async function emuctl(...args: string[]): Promise<string> {
  const r = await run(process.execPath, [CLI, '--url', daemon!.url, '--no-color', ...args], 1_800_000, cliEnv);
  if (r.code !== 0) throw new Error(`emuctl ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `N${i + 1}`);
const loadNow = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const hostInterfaces = () => readdirSync('/sys/class/net');
const shortId = (id: string) => id.replace(/-/g, '').slice(0, 8).toLowerCase();
const daemonRssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${daemon!.pid}/status`, 'utf8'))![1]) / 1024;
const containersOf = async (projectId: string) => (await sh('docker', ['ps', '-aq', '--no-trunc', '--filter', `label=emuctl.project=${projectId}`])).split('\n').filter(Boolean);

/** The lab file: N nodes of the image, no links; `mgmt:` only when `mgmt` is given. */
function writeLab(lab: string, n: number, image: string, mgmt: string | undefined): string {
  const lines = [`name: ${lab}`, ...(mgmt === undefined ? [] : [`mgmt: ${mgmt}`]), 'nodes:', ...names(n).map((name) => `  ${name}: {type: docker, image: ${image}}`)];
  const file = join(work!, `${lab}.yml`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const cgroupProcs = (dir: string) => readFileSync(`${dir}/cgroup.procs`, 'utf8').split('\n').filter(Boolean);
const comm = (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** Each container's memory cgroup, found from its main process. */
async function cgroupsOf(containers: string[]): Promise<{ dir: string; usage: string }[]> {
  const pids = (await sh('docker', ['inspect', '-f', '{{.State.Pid}}', ...containers])).trim().split('\n');
  return pids.map(memoryCgroup);
}

/** Waits until an sshd runs in every container (read from the host: nothing touches the node). */
async function untilSshdRuns(cgroups: { dir: string }[]): Promise<void> {
  const deadline = performance.now() + TIMEOUT_S * 1000;
  for (;;) {
    const missing = cgroups.filter((c) => !cgroupProcs(c.dir).some((p) => comm(p) === 'sshd'));
    if (!missing.length) return;
    if (performance.now() > deadline) throw new Error(`no sshd in ${missing.length} containers after ${TIMEOUT_S} s`);
    await sleep(250);
  }
}

/** KiB per container: the cgroup's usage and the VmRSS of its processes, summed. */
function memory(cgroups: { dir: string; usage: string }[]): { cgroupKb: number[]; rssKb: number[] } {
  const cgroupKb = cgroups.map((c) => Number(readFileSync(`${c.dir}/${c.usage}`, 'utf8')) / 1024);
  const rssKb = cgroups.map((c) => cgroupProcs(c.dir).reduce((sum, p) => {
    try {
      return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return sum; // the process ended meanwhile
    }
  }, 0));
  return { cgroupKb, rssKb };
}

/** ms from t0 at which each node first answered `ssh -F config NODE true` (polled, SSH_PARALLEL at a time, until `deadline`); those that never did are missing. */
async function sshAnswers(config: string, nodes: string[], t0: number, deadline: number): Promise<number[]> {
  const answered: number[] = [];
  const queue = [...nodes];
  const worker = async () => {
    for (let node = queue.shift(); node; node = queue.shift()) {
      for (;;) {
        // ConnectTimeout covers the banner exchange too, which a node's sshd answers late under a load of hundreds.
        const r = await run('ssh', ['-F', config, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30', node, 'true'], 120_000, cliEnv);
        if (r.code === 0) {
          answered.push(performance.now() - t0);
          break;
        }
        if (performance.now() > deadline) {
          console.log(`  ${node} did not answer ssh in time: ${r.stderr.trim().split('\n').pop()}`);
          break;
        }
        await sleep(250);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SSH_PARALLEL, nodes.length) }, worker));
  return answered.sort((a, b) => a - b);
}

/** Runs `ansible -i inventory all -m ping` until every node pongs or `deadline`: ms from t0 (NaN if never), the last run's duration, runs, most pongs in a run. */
async function ansiblePing(inventory: string, nodes: string[], t0: number, deadline: number): Promise<{ at: number; runMs: number; runs: number; pongs: number }> {
  const env = { ...cliEnv, ANSIBLE_HOME: join(work!, '.ansible'), ANSIBLE_LOCAL_TEMP: join(work!, '.ansible', 'tmp') };
  let most = 0;
  for (let runs = 1; ; runs++) {
    const started = performance.now();
    const r = await run('ansible', ['-i', inventory, 'all', '-m', 'ping', '--forks', String(Math.min(nodes.length, 50)), '-o'], 900_000, env);
    const pongs = ansiblePongs(r.stdout);
    most = Math.max(most, pongs.length);
    if (r.code === 0 && pongs.length === nodes.length) return { at: performance.now() - t0, runMs: performance.now() - started, runs, pongs: most };
    if (performance.now() > deadline) {
      console.log(`  ansible ping: ${pongs.length} of ${nodes.length} in the last run: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' | ')}`);
      return { at: NaN, runMs: performance.now() - started, runs, pongs: most };
    }
    await sleep(500);
  }
}

/** What `lab down` left of a project. */
async function leftOf(projectId: string, interfacesBefore: string[], nodeIds: string[]): Promise<LabRun['left']> {
  const tag = shortId(projectId);
  const bridge = `emum${tag}`;
  const rules = mgmtRules(await sh('iptables-save', ['-t', 'filter']), tag);
  const dnsmasq = (await sh('ps', ['-eo', 'args'])).split('\n').filter((l) => /^\S*dnsmasq\b/.test(l) && l.includes(bridge));
  const interfaces = interfacesLeft(interfacesBefore, hostInterfaces(), [tag, ...nodeIds.map(shortId)]);
  if (interfaces.length) console.log(`interfaces left: ${interfaces.join(' ')}`);
  if (rules.length) console.log(`iptables lines left:\n${rules.join('\n')}`);
  return { containers: (await containersOf(projectId)).length, interfaces: interfaces.length, bridges: existsSync(`/sys/class/net/${bridge}`) ? 1 : 0, rules: rules.length, dnsmasq: dnsmasq.length };
}

/** One lab of n nodes, with `mgmt` or without, up, measured and down. */
async function measureLab(n: number, image: string, withMgmt: boolean): Promise<LabRun> {
  const lab = `${withMgmt ? 'mgmt' : 'base'}${n}-${process.pid}`;
  const file = writeLab(lab, n, image, withMgmt ? MGMT : undefined);
  const loadBefore = loadNow();
  const interfacesBefore = hostInterfaces();
  console.log(`\n${withMgmt ? `with mgmt: ${MGMT}` : 'baseline, no mgmt'}: ${n} nodes, load average ${loadBefore}`);

  const t0 = performance.now();
  labsUp.add(lab);
  await emuctl('-q', 'lab', 'up', file, ...(CONCURRENCY ? ['--concurrency', CONCURRENCY] : []));
  const upMs = performance.now() - t0;
  console.log(`  lab up returned after ${(upMs / 1000).toFixed(1)} s`);
  const project = ((await daemon!.api('GET', '/v2/projects')).body as { name: string; project_id: string }[]).find((p) => p.name === lab);
  if (!project) throw new Error(`lab up made no project ${lab}`);
  const nodeIds = ((await daemon!.api('GET', `/v2/projects/${project.project_id}/nodes`)).body as { node_id: string }[]).map((x) => x.node_id);
  const containers = await containersOf(project.project_id);
  if (containers.length !== n) throw new Error(`${containers.length} containers for ${n} nodes`);

  // Memory once sshd runs everywhere (read from the host) and before anything contacts a node: the
  // same state in both labs. With mgmt, ssh is polled after this, so the first answer waits for the
  // slowest sshd start too (every node needs its sshd before it answers anyway).
  const cgroups = await cgroupsOf(containers);
  await untilSshdRuns(cgroups);
  const mem = memory(cgroups);
  let reach: Partial<LabRun> = {};
  if (withMgmt) {
    const config = join(work!, `${lab}.ssh-config`);
    const inventory = join(work!, `${lab}.ansible.yml`);
    await emuctl('lab', 'inventory', lab, '--format', 'ssh-config', '-o', config);
    await emuctl('lab', 'inventory', lab, '--format', 'ansible', '-o', inventory);
    const answers = await sshAnswers(config, names(n), t0, performance.now() + TIMEOUT_S * 1000);
    console.log(`  ${answers.length} of ${n} nodes answered ssh, the last ${((answers.at(-1) ?? NaN) / 1000).toFixed(1)} s after lab up's start`);
    const ansible = await ansiblePing(inventory, names(n), t0, performance.now() + TIMEOUT_S * 1000);
    console.log(`  ansible ping: ${ansible.pongs} of ${n}, ${(ansible.at / 1000).toFixed(1)} s after lab up's start (${ansible.runs} runs)`);
    reach = { sshAnswered: answers.length, sshFirstMs: answers[0], sshMedianMs: median(answers), sshAllMs: answers.length === n ? answers.at(-1) : NaN,
      ansiblePongs: ansible.pongs, ansibleMs: ansible.at, ansibleRunMs: ansible.runMs, ansibleRuns: ansible.runs,
      cgroupAfterKb: median(memory(cgroups).cgroupKb) };
  }
  const daemonMb = daemonRssMb();
  const loadUp = loadNow();

  const t1 = performance.now();
  await emuctl('-q', 'lab', 'down', lab);
  labsUp.delete(lab);
  const downMs = performance.now() - t1;
  const left = await leftOf(project.project_id, interfacesBefore, nodeIds);
  return { nodes: n, mgmt: withMgmt, loadBefore, upMs, ...mem, daemonMb, ...reach, loadUp, downMs, left };
}

async function main(): Promise<void> {
  const image = await testImage('ssh');
  work = mkdtempSync(join(tmpdir(), 'emuctl-bench-mgmt-'));
  mkdirSync(join(work, 'home'), { mode: 0o700 });
  cliEnv = { PATH: process.env.PATH, HOME: join(work, 'home'), EMUCTL_HOME: join(work, 'home'), EMUCTL_TIMEOUT: '300' };
  daemon = await startTestDaemon({ env: DAEMON_ENV });
  console.log(`Management network: ${machineLine()}, Docker ${(await sh('docker', ['version', '--format', '{{.Server.Version}}'])).trim()}, image ${image}, sizes ${SIZES.join(', ')}, mgmt range ${MGMT_RANGE}`);
  const runs: LabRun[] = [];
  for (const n of SIZES) {
    runs.push(await measureLab(n, image, false));
    runs.push(await measureLab(n, image, true));
    // The tables so far after each size: a long run that is stopped still has its figures.
    console.log(`\n${reportTables(runs)}`);
  }
  if (!runs.every(clean)) throw new Error('lab down left something behind (see the tables)');
  if (!runs.every(reachedAll)) throw new Error('not every node was reached (see the tables)');
}

await runBench('docker mgmt bench', (TIMEOUT_S * 3 + 1800) * 1000 * SIZES.length, main, async () => {
  const projects = daemon ? ((await daemon.api('GET', '/v2/projects').catch(() => undefined))?.body as { project_id: string; name: string }[] | undefined) : undefined;
  for (const project of projects?.filter((p) => labsUp.has(p.name)) ?? []) {
    await emuctl('-q', 'lab', 'down', project.name).catch(() => daemon!.api('DELETE', `/v2/projects/${project.project_id}`).catch(() => undefined));
    for (const c of await containersOf(project.project_id).catch(() => [])) await sh('docker', ['rm', '-f', c]).catch(() => undefined);
  }
  await daemon?.stop();
  if (daemon) removeHome(daemon.home);
  if (work) rmSync(work, { recursive: true, force: true });
});
