// NAT node bench (issue 20), with real parts on a real daemon:
//  1. NAT node start → first DHCP lease of a VPCS: the time from the NAT node's create request
//     (the node is created started: bridge, firewall, dnsmasq), its link to a running VPCS and
//     `ip dhcp` there, to dnsmasq's lease file holding the VPCS's MAC (the lease is granted).
//     Also when `ip dhcp` returns: VPCS itself waits 1 s between DHCP steps and then sends 3
//     gratuitous ARPs 1 s apart before printing the lease. Each round deletes the project, so
//     the host side is made again.
//  2. TCP throughput lab → host through the NAT node (iperf3, 5 s): the lab host is a network
//     namespace whose interface is a cloud node's TAP port, linked to the NAT node; iperf3 runs
//     its client there and its server on the host at the NAT gateway address. Baseline in the
//     same round: host → host over a veth pair (iperf3 client in a second namespace). Also the
//     other way (iperf3 -R: host → lab, as a download), against the veth the other way.
//  `--offload off` runs the daemon with tap_offload false (TAPs without virtio headers, so every
//  frame crosses the dataplane at wire size), for the figures before native/offload.c.
// Needs root; only 127.0.0.1, the NAT bridge and namespaces this bench makes (198.18.0.0/15).
// Usage: npm run build && node dist/bench/nat/run.js [--rounds 5] [--seconds 5] [--offload on|off]
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectVpcsConsole } from '../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { freeTestSubnet } from '../../test/helpers/host-network.js';
import { machineLine } from '../forward/latency.js';
import { numberArg, stringArg } from '../lib/args.js';

const run = promisify(execFile);
const ROUNDS = numberArg('rounds', 5);
const SECONDS = numberArg('seconds', 5);
const OFFLOAD = stringArg('offload', 'on') !== 'off';
const ID = (process.pid % 46656).toString(36);
const LAB_NS = `enb${ID}-lab`;
const VETH_NS = `enb${ID}-veth`;
const LAB_TAP = `enb${ID}t`;
const VETH_HOST = `enb${ID}h`;
const VETH_PEER = `enb${ID}p`;

async function api(d: TestDaemon, method: string, path: string, body?: unknown): Promise<any> {
  const r = await d.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

async function link(d: TestDaemon, projectId: string, a: string, b: string, portB = 0): Promise<void> {
  await api(d, 'POST', `/v2/projects/${projectId}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: portB }] });
}

/** Resolves with performance.now() once dnsmasq's lease file names `mac`. */
async function leaseGranted(d: TestDaemon, mac: string): Promise<number> {
  const file = join(d.home, 'run', `nat-${d.pid}`, 'leases');
  for (const deadline = performance.now() + 30_000; performance.now() < deadline;) {
    if ((await readFile(file, 'utf8').catch(() => '')).includes(mac)) return performance.now();
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no lease for ${mac} in ${file}`);
}

/** One round of figure 1: ms from the NAT create request to the lease granted, and to `ip dhcp` returning. */
async function leaseRound(d: TestDaemon, round: number): Promise<{ granted: number; vpcs: number }> {
  const project = await api(d, 'POST', '/v2/projects', { name: `nat-bench-${round}` });
  try {
    const pc = await api(d, 'POST', `/v2/projects/${project.project_id}/nodes`, { name: 'PC1', node_type: 'vpcs' });
    await api(d, 'POST', `/v2/projects/${project.project_id}/nodes/${pc.node_id}/start`, {});
    const c = await connectVpcsConsole('127.0.0.1', pc.console);
    try {
      // dnsmasq keeps leases across restarts (the same MAC gets the same address): start from none.
      await rm(join(d.home, 'run', `nat-${d.pid}`, 'leases'), { force: true });
      const t0 = performance.now();
      const nat = await api(d, 'POST', `/v2/projects/${project.project_id}/nodes`, { name: 'NAT1', node_type: 'nat' });
      await link(d, project.project_id, pc.node_id, nat.node_id);
      const granted = leaseGranted(d, pc.properties.mac_address);
      const out = await c.run('ip dhcp', { timeoutMs: 30_000 });
      const vpcs = performance.now() - t0;
      if (!/IP \d+\.\d+\.\d+\.\d+\/\d+ GW/.test(out)) throw new Error(`no lease: ${out}`);
      return { granted: (await granted) - t0, vpcs };
    } finally {
      c.close();
    }
  } finally {
    await api(d, 'DELETE', `/v2/projects/${project.project_id}`);
  }
}

/** iperf3 from namespace `ns` to `server` for SECONDS (from the server when `reverse`); the receiver's bits/s. */
async function iperf(ns: string, server: string, reverse = false): Promise<number> {
  const port = String(5201 + Math.floor(Math.random() * 1000));
  const srv = spawn('iperf3', ['-s', '-1', '--forceflush', '-B', server, '-p', port], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await once(srv.stdout!, 'data');
    const { stdout } = await run('ip', ['netns', 'exec', ns, 'iperf3', '-c', server, '-p', port, '-t', String(SECONDS), '-J', ...(reverse ? ['-R'] : [])], { timeout: (SECONDS + 30) * 1000 });
    return JSON.parse(stdout).end.sum_received.bits_per_second as number;
  } finally {
    srv.kill();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[], f: (n: number) => string) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
const gbit = (bps: number) => `${(bps / 1e9).toFixed(2)} Gbit/s`;

async function main(): Promise<void> {
  const { subnet, prefix } = await freeTestSubnet();
  const veth = (await freeTestSubnet()).prefix;
  const d = await startTestDaemon({ env: { EMUCTL_NAT_SUBNET: subnet, EMUCTL_UDP_PORT_RANGE: '31400-31499', EMUCTL_CONSOLE_PORT_RANGE: '24900-24949', EMUCTL_TAP_OFFLOAD: String(OFFLOAD) } });
  try {
    console.log(`NAT bench: ${machineLine()}, ${ROUNDS} rounds, iperf3 ${SECONDS} s, NAT subnet ${subnet}, TAP offloads ${OFFLOAD ? 'on' : 'off'}\n`);
    const leases: number[] = [];
    const vpcsDone: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const r = await leaseRound(d, i);
      leases.push(r.granted);
      vpcsDone.push(r.vpcs);
    }

    // Figure 2: the lab host (a namespace behind a cloud TAP port) → NAT node → host; a veth pair beside it.
    const project = await api(d, 'POST', '/v2/projects', { name: 'nat-bench-iperf' });
    const pid = project.project_id;
    await run('ip', ['netns', 'add', LAB_NS]);
    await run('ip', ['netns', 'add', VETH_NS]);
    const nat = await api(d, 'POST', `/v2/projects/${pid}/nodes`, { name: 'NAT1', node_type: 'nat' });
    const cloud = await api(d, 'POST', `/v2/projects/${pid}/nodes`, { name: 'Lab', node_type: 'cloud', properties: { ports_mapping: [{ name: 'lab', port_number: 0, type: 'tap', interface: LAB_TAP }] } });
    await link(d, pid, cloud.node_id, nat.node_id);
    const inLab = (...a: string[]) => run('ip', ['netns', 'exec', LAB_NS, ...a]);
    await run('ip', ['link', 'set', LAB_TAP, 'netns', LAB_NS]);
    await inLab('ip', 'addr', 'add', `${prefix}.50/24`, 'dev', LAB_TAP);
    await inLab('ip', 'link', 'set', LAB_TAP, 'up');
    await inLab('ip', 'route', 'add', 'default', 'via', `${prefix}.1`);
    await run('ip', ['link', 'add', VETH_HOST, 'type', 'veth', 'peer', 'name', VETH_PEER]);
    await run('ip', ['link', 'set', VETH_PEER, 'netns', VETH_NS]);
    await run('ip', ['addr', 'add', `${veth}.1/24`, 'dev', VETH_HOST]);
    await run('ip', ['link', 'set', VETH_HOST, 'up']);
    await run('ip', ['netns', 'exec', VETH_NS, 'ip', 'addr', 'add', `${veth}.2/24`, 'dev', VETH_PEER]);
    await run('ip', ['netns', 'exec', VETH_NS, 'ip', 'link', 'set', VETH_PEER, 'up']);
    const natBps: number[] = [];
    const vethBps: number[] = [];
    const downBps: number[] = [];
    const vethDownBps: number[] = [];
    for (let i = 0; i < Math.min(ROUNDS, 3); i++) {
      natBps.push(await iperf(LAB_NS, `${prefix}.1`));
      vethBps.push(await iperf(VETH_NS, `${veth}.1`));
      downBps.push(await iperf(LAB_NS, `${prefix}.1`, true));
      vethDownBps.push(await iperf(VETH_NS, `${veth}.1`, true));
    }
    await api(d, 'DELETE', `/v2/projects/${pid}`);

    console.log('| figure | median | range | baseline in the same run | target |');
    console.log('|---|---|---|---|---|');
    console.log(`| NAT node start → first DHCP lease of a VPCS (granted) | ${(median(leases) / 1000).toFixed(2)} s | ${range(leases, (n) => (n / 1000).toFixed(2))} s | \`ip dhcp\` returns on the VPCS after ${(median(vpcsDone) / 1000).toFixed(2)} s (${range(vpcsDone, (n) => (n / 1000).toFixed(2))} s: its own 1 s steps and 3 ARP checks) | ≤ 2 s |`);
    console.log(`| TCP lab → host through the NAT node (iperf3) | ${gbit(median(natBps))} | ${range(natBps, gbit)} | host → host over a veth: ${gbit(median(vethBps))} (${range(vethBps, gbit)}); ratio ${(median(natBps) / median(vethBps)).toFixed(3)}× | ratio ≥ 0.5× |`);
    console.log(`| TCP host → lab through the NAT node (iperf3 -R) | ${gbit(median(downBps))} | ${range(downBps, gbit)} | over the veth the same way: ${gbit(median(vethDownBps))} (${range(vethDownBps, gbit)}); ratio ${(median(downBps) / median(vethDownBps)).toFixed(3)}× | – |`);
  } finally {
    await d.stop();
    removeHome(d.home);
    for (const ns of [LAB_NS, VETH_NS]) await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
    await run('ip', ['link', 'delete', VETH_HOST]).catch(() => undefined);
  }
}

await main();
