// VLANs with real VPCS: access ports isolate VLANs on one switch, and a dot1q trunk between two
// switches carries two VLANs (802.1Q tags seen by tshark on the trunk link). All PCs share one IP
// subnet, so only layer-2 isolation keeps them apart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectVpcsConsole, ping, setIp, type PingResult, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { frameCount } from '../helpers/tshark.js';

const run = promisify(execFile);
const ENV = { EMUCTL_UDP_PORT_RANGE: '31200-31399', EMUCTL_CONSOLE_PORT_RANGE: '25200-25299' };

type PortSpec = { type: 'access' | 'dot1q'; vlan: number };

/** A full 8-port ports_mapping: the given ports as specified, the others access in VLAN 1. */
function portsMapping(spec: Record<number, PortSpec>) {
  return Array.from({ length: 8 }, (_, n) => ({ name: `Ethernet${n}`, port_number: n, ...(spec[n] ?? { type: 'access', vlan: 1 }) }));
}


const show = (r: PingResult) => `sent ${r.sent}, received ${r.received}${r.error ? `, error "${r.error}"` : ''}`;

describe('end to end: VLANs on access ports and over a dot1q trunk', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-e2e-vlans-'));
  let d: TestDaemon | undefined;
  const consoles: VpcsConsole[] = [];

  /** Creates and starts a VPCS, connects its console and gives it an address. */
  async function pc(pid: string, name: string, cidr: string): Promise<{ node: any; console: VpcsConsole }> {
    const node = await createNode(d!, pid, name, 'vpcs');
    const started = await d!.api('POST', `/v2/projects/${pid}/nodes/${node.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const c = await connectVpcsConsole('127.0.0.1', node.console);
    consoles.push(c);
    await setIp(c, cidr);
    return { node, console: c };
  }

  async function configureSwitch(pid: string, sw: any, spec: Record<number, PortSpec>): Promise<void> {
    const r = await d!.api('PUT', `/v2/projects/${pid}/nodes/${sw.node_id}`, { properties: { ports_mapping: portsMapping(spec) } });
    assert.equal(r.status, 200, r.text);
    for (const [n, s] of Object.entries(spec)) {
      const port = r.body.properties.ports_mapping.find((p: any) => p.port_number === Number(n));
      assert.equal(port.type, s.type, `port ${n} type`);
      assert.equal(port.vlan, s.vlan, `port ${n} vlan`);
    }
  }

  before(async () => {
    d = await startTestDaemon({ home, env: ENV });
  });
  after(async () => {
    for (const c of consoles) c.close();
    await d?.stop();
    removeHome(home);
  });

  describe('one switch, access ports', () => {
    let pid: string;
    let sw: any;
    let pc1: { node: any; console: VpcsConsole };
    let pc2: { node: any; console: VpcsConsole };
    let pc3: { node: any; console: VpcsConsole };
    let l2: any;

    before(async () => {
      pid = await createProject(d!, 'vlan-access');
      sw = await createNode(d!, pid, 'SW1', 'ethernet_switch');
      await configureSwitch(pid, sw, { 0: { type: 'access', vlan: 10 }, 1: { type: 'access', vlan: 10 }, 2: { type: 'access', vlan: 20 } });
      pc1 = await pc(pid, 'PC1', '10.0.0.1/24');
      pc2 = await pc(pid, 'PC2', '10.0.0.2/24');
      pc3 = await pc(pid, 'PC3', '10.0.0.3/24');
      await createLink(d!, pid, [pc1.node.node_id, 0], [sw.node_id, 0]);
      l2 = await createLink(d!, pid, [pc2.node.node_id, 0], [sw.node_id, 1]);
      await createLink(d!, pid, [pc3.node.node_id, 0], [sw.node_id, 2]);
    });

    it('two PCs on access ports of the same VLAN ping each other', async () => {
      const r = await ping(pc1.console, '10.0.0.2', 3, { intervalMs: 100, waitMs: 1000 });
      assert.equal(r.received, 3, show(r));
    });

    it('a PC in another VLAN is unreachable, both ways', async () => {
      const r = await ping(pc1.console, '10.0.0.3', 1, { waitMs: 500 });
      assert.equal(r.received, 0, show(r));
      assert.match(r.error ?? '', /not reachable/, 'ARP for PC3 never crossed into VLAN 20');
      const back = await ping(pc3.console, '10.0.0.1', 1, { waitMs: 500 });
      assert.equal(back.received, 0, show(back));
    });

    it('moving a live port to the other VLAN moves its PC: no stale MAC entry leaks frames into VLAN 20', async () => {
      await configureSwitch(pid, sw, { 0: { type: 'access', vlan: 10 }, 1: { type: 'access', vlan: 20 }, 2: { type: 'access', vlan: 20 } });
      // PC1 still has PC2's MAC in its ARP cache and the switch learnt it in VLAN 10: that unicast must not
      // leave port 1 now (the reply could not come back anyway, so the capture on PC2's link is the proof).
      const capture = await d!.api('POST', `/v2/projects/${pid}/links/${l2.link_id}/start_capture`, { capture_file_name: 'moved-port.pcap' });
      assert.equal(capture.status, 201, capture.text);
      const r = await ping(pc1.console, '10.0.0.2', 2, { intervalMs: 100, waitMs: 500 });
      assert.equal(r.received, 0, show(r));
      const r23 = await ping(pc2.console, '10.0.0.3', 3, { intervalMs: 100, waitMs: 1000 });
      assert.equal(r23.received, 3, show(r23));
      // Stopping the capture flushes what the writer batched: the file is complete once it answers.
      assert.equal((await d!.api('POST', `/v2/projects/${pid}/links/${l2.link_id}/stop_capture`, {})).status, 201);
      const file = capture.body.capture_file_path;
      assert.ok((await frameCount(file, 'icmp && ip.src == 10.0.0.2')) >= 3, 'the capture on port 1 records PC2\'s traffic in VLAN 20');
      assert.equal(await frameCount(file, 'ip.src == 10.0.0.1 || arp.src.proto_ipv4 == 10.0.0.1'), 0, 'nothing from PC1 (VLAN 10) reached port 1 (VLAN 20)');
    });
  });

  describe('two switches joined by a dot1q trunk', () => {
    let pid: string;
    let trunk: any;
    const pcs: Record<string, { node: any; console: VpcsConsole }> = {};

    before(async () => {
      pid = await createProject(d!, 'vlan-trunk');
      const swA = await createNode(d!, pid, 'SWA', 'ethernet_switch');
      const swB = await createNode(d!, pid, 'SWB', 'ethernet_switch');
      const spec: Record<number, PortSpec> = { 0: { type: 'access', vlan: 10 }, 1: { type: 'access', vlan: 20 }, 7: { type: 'dot1q', vlan: 1 } };
      await configureSwitch(pid, swA, spec);
      await configureSwitch(pid, swB, spec);
      trunk = await createLink(d!, pid, [swA.node_id, 7], [swB.node_id, 7]);
      // One subnet for all four: VLAN 10 is .11/.12, VLAN 20 is .21/.22.
      for (const [name, sw, port, ip] of [['A10', swA, 0, '10.0.0.11'], ['B10', swB, 0, '10.0.0.12'], ['A20', swA, 1, '10.0.0.21'], ['B20', swB, 1, '10.0.0.22']] as const) {
        pcs[name] = await pc(pid, name, `${ip}/24`);
        await createLink(d!, pid, [pcs[name].node.node_id, 0], [sw.node_id, port]);
      }
    });

    it('VLAN 10 PCs on either side of the trunk ping each other, while the trunk is captured', async () => {
      const capture = await d!.api('POST', `/v2/projects/${pid}/links/${trunk.link_id}/start_capture`, {});
      assert.equal(capture.status, 201, capture.text);
      const r = await ping(pcs.A10.console, '10.0.0.12', 3, { intervalMs: 100, waitMs: 1000 });
      assert.equal(r.received, 3, show(r));
    });

    it('VLAN 20 PCs on either side of the trunk ping each other', async () => {
      const r = await ping(pcs.B20.console, '10.0.0.21', 3, { intervalMs: 100, waitMs: 1000 });
      assert.equal(r.received, 3, show(r));
    });

    it('VLAN 10 cannot reach VLAN 20, on the same switch or across the trunk', async () => {
      for (const [from, to] of [['A10', '10.0.0.21'], ['A10', '10.0.0.22'], ['B20', '10.0.0.12']] as const) {
        const r = await ping(pcs[from].console, to, 1, { waitMs: 500 });
        assert.equal(r.received, 0, `${from} -> ${to}: ${show(r)}`);
      }
    });

    it('the trunk capture shows 802.1Q tags for VLAN 10 and VLAN 20 (tshark -Y vlan)', async () => {
      const link = (await d!.api('GET', `/v2/projects/${pid}/links/${trunk.link_id}`)).body;
      assert.equal(link.capturing, true);
      // Stopping the capture flushes what the writer batched: the file is complete once it answers.
      assert.equal((await d!.api('POST', `/v2/projects/${pid}/links/${trunk.link_id}/stop_capture`, {})).status, 201);
      const { stdout } = await run('tshark', ['-r', link.capture_file_path, '-Y', 'vlan', '-T', 'fields', '-e', 'vlan.id', '-e', 'icmp.type', '-e', 'ip.src'], { timeout: 30_000 });
      const rows = stdout.split('\n').filter(Boolean).map((l) => l.split('\t'));
      const ids = new Set(rows.map((r) => r[0]));
      assert.ok(ids.has('10') && ids.has('20'), `VLAN ids on the trunk: ${[...ids].join(', ') || 'none'}`);
      assert.ok(rows.some(([vlan, type, src]) => vlan === '10' && type === '8' && src === '10.0.0.11'), 'echo request from A10 tagged 10');
      assert.ok(rows.some(([vlan, type, src]) => vlan === '20' && type === '0' && src === '10.0.0.21'), 'echo reply from A20 tagged 20');
      assert.ok(!rows.some(([vlan]) => vlan === '1'), 'the native VLAN is never tagged');
    });
  });
});
