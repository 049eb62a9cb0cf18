import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { icmpPackets, frameCount, type IcmpPacket } from '../helpers/tshark.js';

/** The live capture's ICMP packets once `enough` holds: the writer flushes its batches within moments, so wait for them. */
async function packetsOnceWritten(file: string, enough: (packets: IcmpPacket[]) => boolean): Promise<IcmpPacket[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const packets = await icmpPackets(file);
    if (enough(packets) || Date.now() > deadline) return packets;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const run = promisify(execFile);
const ENV = { EMUCTL_UDP_PORT_RANGE: '30300-30399', EMUCTL_CONSOLE_PORT_RANGE: '25000-25099' };

function tcpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** PIDs of the VPCS started for this console port (its command line names the port; the daemon relays the TCP port to VPCS's unix socket). */
async function vpcsPids(consolePort: number): Promise<number[]> {
  try {
    const { stdout } = await run('pgrep', ['-f', `vpcs -p ${consolePort} `]);
    return stdout.trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

describe('end to end: two VPCS on a switch ping each other, and the link capture shows it', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-e2e-'));
  let d: TestDaemon;
  let pid: string;
  let pc1: any;
  let pc2: any;
  let l1: any;
  const consoles: VpcsConsole[] = [];

  before(async () => {
    d = await startTestDaemon({ home, env: ENV });
    pid = await createProject(d, 'ping-lab');
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    pc1 = await createNode(d, pid, 'PC1', 'vpcs');
    pc2 = await createNode(d, pid, 'PC2', 'vpcs');
    l1 = await createLink(d, pid, [pc1.node_id, 0], [sw.node_id, 0]);
    await createLink(d, pid, [pc2.node_id, 0], [sw.node_id, 1]);
  });
  after(async () => {
    for (const c of consoles) c.close();
    await d.stop();
    removeHome(home);
  });

  it('VPCS nodes start with a telnet console and report started', async () => {
    assert.equal(pc1.status, 'stopped');
    assert.equal(pc1.console_type, 'telnet');
    for (const pc of [pc1, pc2]) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'started');
    }
  });

  it('pings across the switch while the link is captured; tshark reads the echo request and reply', async () => {
    const c1 = await connectVpcsConsole('127.0.0.1', pc1.console);
    const c2 = await connectVpcsConsole('127.0.0.1', pc2.console);
    consoles.push(c1, c2);
    await setIp(c1, '10.0.0.1/24');
    await setIp(c2, '10.0.0.2/24');
    const capture = await d.api('POST', `/v2/projects/${pid}/links/${l1.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    assert.equal(capture.body.capture_file_name, 'PC1_0-0_to_SW1_0-0.pcap');
    const result = await ping(c1, '10.0.0.2', 3);
    assert.equal(result.received, 3, JSON.stringify(result));

    const file = capture.body.capture_file_path;
    const packets = await packetsOnceWritten(file, (p) => p.filter((x) => x.type === 0).length >= 3);
    assert.ok(packets.some((p) => p.src === '10.0.0.1' && p.dst === '10.0.0.2' && p.type === 8), 'echo request');
    assert.ok(packets.some((p) => p.src === '10.0.0.2' && p.dst === '10.0.0.1' && p.type === 0), 'echo reply');
    assert.ok((await frameCount(file, 'arp')) >= 1, 'ARP crossed the link too');
  });

  it('GET pcap streams the growing capture', async () => {
    const controller = new AbortController();
    const res = await fetch(`${d.url}/v2/projects/${pid}/links/${l1.link_id}/pcap`, { signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    assert.ok(value && value.length >= 24);
    assert.equal(Buffer.from(value).readUInt32LE(0), 0xa1b2c3d4);
    controller.abort();
  });

  it('a kill -9 of the daemon mid-capture leaves a pcap tshark reads; the restarted daemon stops the leftover VPCS', async () => {
    const c1 = consoles[0];
    await ping(c1, '10.0.0.2', 2);
    const capturePath = (await d.api('GET', `/v2/projects/${pid}/links/${l1.link_id}`)).body.capture_file_path;
    await packetsOnceWritten(capturePath, (p) => p.filter((x) => x.type === 8).length >= 5); // on disk before the kill
    d.child.kill('SIGKILL');
    await d.stop();
    for (const c of consoles.splice(0)) c.close();
    const packets = await icmpPackets(capturePath);
    assert.ok(packets.filter((p) => p.type === 8).length >= 5, `tshark reads the echo requests after the crash (${packets.length} ICMP)`);
    assert.notDeepEqual(await vpcsPids(pc1.console), [], 'the VPCS outlived the daemon crash');

    d = await startTestDaemon({ home, env: ENV });
    assert.match(d.log(), /stopped leftover process/);
    assert.deepEqual([await vpcsPids(pc1.console), await vpcsPids(pc2.console)], [[], []], 'the leftover VPCS were stopped by the cleanup');
    assert.equal(await tcpPortFree(pc1.console), true, 'console port free');
    assert.equal(await tcpPortFree(pc2.console), true);

    const reopened = await d.api('POST', `/v2/projects/${pid}/open`);
    assert.equal(reopened.status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
    assert.deepEqual(nodes.map((n: any) => n.name).sort(), ['PC1', 'PC2', 'SW1']);
    for (const n of nodes.filter((x: any) => x.node_type === 'vpcs')) assert.equal(n.status, 'stopped', 'not auto_start: VPCS stay stopped');
  });

  it('a VPCS that dies is reported stopped; an auto_start project restarts just the nodes that were running', async () => {
    await d.api('PUT', `/v2/projects/${pid}`, { auto_start: true });
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc1.node_id}/start`, {});
    assert.equal(started.body.status, 'started');
    const { stdout } = await run('pgrep', ['-f', `vpcs -p ${pc1.console} `]);
    const vpcsPid = Number(stdout.trim().split('\n')[0]);
    assert.ok(vpcsPid > 0);
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc2.node_id}/start`, {});
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc2.node_id}/stop`, {});
    assert.equal((await d.api('POST', `/v2/projects/${pid}/close`)).status, 204);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/open`)).status, 201);
    const byName = async () => new Map(((await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]).map((n) => [n.name, n]));
    let nodes = await byName();
    assert.equal(nodes.get('PC1').status, 'started', 'was running: restarted');
    assert.equal(nodes.get('PC2').status, 'stopped', 'was stopped: left stopped');

    const { stdout: again } = await run('pgrep', ['-f', `vpcs -p ${pc1.console} `]);
    process.kill(Number(again.trim().split('\n')[0]), 'SIGTERM');
    for (let i = 0; i < 50 && (await byName()).get('PC1').status !== 'stopped'; i++) await new Promise((r) => setTimeout(r, 100));
    nodes = await byName();
    assert.equal(nodes.get('PC1').status, 'stopped', 'a dead VPCS is reported stopped');
  });
});
