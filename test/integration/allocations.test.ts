// Every allocation (UDP port, console port, VPCS MAC byte, node directory) belongs to an owner and
// goes back with it: failed creates, exhausted ranges, unreachable computes, concurrent creates.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createNode, createProject } from '../helpers/lab.js';

/** What the compute holds now. */
async function held(d: TestDaemon): Promise<{ console: number[]; udp: number[] }> {
  const r = await d.api('GET', '/v2/compute/network/ports');
  assert.equal(r.status, 200);
  return { console: r.body.console_ports, udp: r.body.udp_ports };
}

function link(d: TestDaemon, pid: string, a: string, pa: number, b: string, pb: number) {
  return d.api('POST', `/v2/projects/${pid}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: pa }, { node_id: b, adapter_number: 0, port_number: pb }] });
}

/** A switch with `ports` access ports. */
function bigSwitch(d: TestDaemon, pid: string, name: string, ports: number) {
  const ports_mapping = Array.from({ length: ports }, (_, i) => ({ name: `e${i}`, port_number: i, type: 'access', vlan: 1 }));
  return createNode(d, pid, name, 'ethernet_switch', { properties: { ports_mapping } });
}

/** Links a:i to b:i for i = from, from + 1, … until the daemon refuses; returns how many it made and the refusal. */
async function linkUntilRefused(d: TestDaemon, pid: string, a: string, b: string, from = 0): Promise<{ made: number; refusal: { status: number; message: string } }> {
  for (let i = from; i < 32; i++) {
    const r = await link(d, pid, a, i, b, i);
    if (r.status !== 201) return { made: i - from, refusal: { status: r.status, message: r.body.message } };
  }
  throw new Error('32 links made, none refused');
}

describe('allocations: a create that fails at any step gives everything back', () => {
  const STEPS = ['after-console', 'after-mac', 'after-vpcs-udp', 'after-wire-udp', 'after-wire', 'after-directory'];
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({
      env: {
        // One console port and exactly the UDP ports of one VPCS (its port, that port + 9, the wire): any leak shows.
        EMUCTL_CONSOLE_PORT_RANGE: '26200-26200',
        EMUCTL_UDP_PORT_RANGE: '30500-30509',
        EMUCTL_FAILPOINTS: STEPS.map((s) => `vpcs.create.${s}=1`).join(','),
      },
    });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('each step fails once; after each failure nothing is held and no directory is left; then the create succeeds', async () => {
    const pid = await createProject(d, 'undo');
    const vpcsDir = join(d.home, 'projects', pid, 'project-files', 'vpcs');
    for (const step of STEPS) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'PC1', node_type: 'vpcs', properties: { mac_address: '00:50:79:66:68:07' } });
      assert.equal(r.status, 500, `${step}: ${r.text}`);
      assert.equal(r.body.message, 'Internal server error');
      assert.match(d.log(), new RegExp(`failpoint vpcs\\.create\\.${step} triggered`));
      assert.deepEqual(await held(d), { console: [], udp: [] }, `nothing held after a failure ${step}`);
      assert.deepEqual(existsSync(vpcsDir) ? readdirSync(vpcsDir) : [], [], `no node directory left after a failure ${step}`);
      assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/nodes`)).body, []);
    }
    const pc = await createNode(d, pid, 'PC1', 'vpcs', { properties: { mac_address: '00:50:79:66:68:07' } });
    assert.equal(pc.properties.mac_address, '00:50:79:66:68:07', 'the MAC byte was given back each time');
    assert.equal(pc.console, 26200);
    const ports = await held(d);
    assert.deepEqual(ports.console, [26200]);
    assert.deepEqual(ports.udp, [30500, 30501, 30509], "VPCS's port, its port + 9 and the wire's port");
    assert.ok(existsSync(join(vpcsDir, pc.node_id, 'startup.vpc')));

    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${pc.node_id}`)).status, 204);
    assert.deepEqual(await held(d), { console: [], udp: [] }, 'a deleted node gives everything back');
    assert.ok(!existsSync(join(vpcsDir, pc.node_id)), 'and its directory goes, as GNS3 removes it');
  });
});

describe('allocations: a QEMU create that fails at any step gives back its console port, directory and wires', () => {
  const STEPS = ['qemu.create.after-console', 'qemu.create.after-directory', 'qemu.wires.after-create'];
  const NODE_ID = '5c1e0a7e-0000-4000-8000-000000000e01';
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({
      env: { EMUCTL_CONSOLE_PORT_RANGE: '26220-26220', EMUCTL_UDP_PORT_RANGE: '30600-30619', EMUCTL_FAILPOINTS: STEPS.map((s) => `${s}=1`).join(',') },
    });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('each step fails once; the same node id then creates (a wire left behind would refuse it), and a delete gives the port back', async () => {
    const pid = await createProject(d, 'qemu-undo');
    const qemuDir = join(d.home, 'projects', pid, 'project-files', 'qemu');
    // Two adapters: the wires failpoint fires after the first wire, which must go again.
    const body = { name: 'R1', node_type: 'qemu', node_id: NODE_ID, properties: { adapters: 2 } };
    for (const step of STEPS) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes`, body);
      assert.equal(r.status, 500, `${step}: ${r.text}`);
      assert.equal(r.body.message, 'Internal server error');
      assert.match(d.log(), new RegExp(`failpoint ${step.replace(/\./g, '\\.')} triggered`));
      assert.deepEqual(await held(d), { console: [], udp: [] }, `nothing held after a failure at ${step}`);
      assert.deepEqual(existsSync(qemuDir) ? readdirSync(qemuDir) : [], [], `no node directory left after a failure at ${step}`);
    }
    const r1 = await createNode(d, pid, 'R1', 'qemu', { node_id: NODE_ID, properties: { adapters: 2 } });
    assert.equal(r1.node_id, NODE_ID);
    assert.equal(r1.console, 26220, 'the console port was given back each time');
    assert.deepEqual((await held(d)).console, [26220]);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${r1.node_id}`)).status, 204);
    assert.deepEqual(await held(d), { console: [], udp: [] }, 'a deleted QEMU node gives its console port back');
    assert.ok(!existsSync(join(qemuDir, NODE_ID)));
  });
});

describe('allocations: exhausted ranges come back whole', () => {
  let d: TestDaemon;
  let remote: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_CONSOLE_PORT_RANGE: '26201-26205', EMUCTL_UDP_PORT_RANGE: '30510-30539' } });
    remote = await startTestDaemon({ flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '30540-30549' } });
  });
  after(async () => {
    await d.stop();
    await remote.stop().catch(() => {});
    removeHome(d.home);
    removeHome(remote.home);
  });

  /** Fills both ranges in a fresh project; returns what it could make and the refusals it met. */
  async function fill(name: string) {
    const pid = await createProject(d, name);
    // Switches hold a console port too (console_type none, as in GNS3): made first, they leave three for VPCS.
    const a = await bigSwitch(d, pid, 'A', 32);
    const b = await bigSwitch(d, pid, 'B', 32);
    const pcs = [];
    for (;;) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: `PC${pcs.length + 1}`, node_type: 'vpcs' });
      if (r.status !== 201) {
        assert.equal(r.status, 409, r.text);
        assert.match(r.body.message, /No free console port left in 26201-26205/);
        break;
      }
      pcs.push(r.body);
    }
    const links = await linkUntilRefused(d, pid, a.node_id, b.node_id);
    assert.equal(links.refusal.status, 409);
    assert.match(links.refusal.message, /No free UDP port left in 30510-30539/);
    return { pid, pcs, a, b, links: links.made, held: await held(d) };
  }

  it('a link toward an unreachable compute gives its local UDP port back', async () => {
    const compute = await d.api('POST', '/v2/computes', { name: 'gone-soon', host: '127.0.0.1', port: remote.port });
    assert.equal(compute.status, 201, compute.text);
    const pid = await createProject(d, 'remote');
    const local = await createNode(d, pid, 'L', 'ethernet_switch');
    const far = await createNode(d, pid, 'R', 'ethernet_switch', { compute_id: compute.body.compute_id });
    await remote.stop();
    for (let i = 0; i < 3; i++) {
      const r = await link(d, pid, local.node_id, i, far.node_id, i);
      // 502 while the controller has not yet seen its stream close, 503 (failing at once) after.
      assert.ok(r.status === 502 || r.status === 503, r.text);
      assert.match(r.body.message, /compute '?gone-soon'?.*(unreachable|not connected)/);
      assert.deepEqual((await held(d)).udp, [], 'no local UDP port kept');
    }
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}`)).status, 204);
    assert.equal((await d.api('DELETE', `/v2/computes/${compute.body.compute_id}`)).status, 204);
  });

  it('exhausts the console and UDP ranges; a VPCS refused for UDP keeps nothing; deleting everything gives both ranges back whole', async () => {
    const first = await fill('full-1');
    assert.equal(first.pcs.length, 3, 'five console ports: two switches, three VPCS');
    assert.equal(first.held.console.length, 5);
    assert.ok(first.held.udp.length >= 29, `the UDP range is used up: ${first.held.udp}`);

    // Free one console port: the next VPCS gets it, then fails on the UDP range; it must keep neither.
    assert.equal((await d.api('DELETE', `/v2/projects/${first.pid}/nodes/${first.pcs[2].node_id}`)).status, 204);
    const afterDelete = await held(d);
    assert.equal(afterDelete.console.length, 4);
    const more = await linkUntilRefused(d, first.pid, first.a.node_id, first.b.node_id, first.links);
    assert.ok(more.made >= 1, 'the deleted VPCS gave its UDP ports back');
    assert.match(more.refusal.message, /No free UDP port left/);
    for (let i = 0; i < 3; i++) {
      const r = await d.api('POST', `/v2/projects/${first.pid}/nodes`, { name: `PC-late${i}`, node_type: 'vpcs', properties: { mac_address: '00:50:79:66:68:40' } });
      assert.equal(r.status, 409, r.text);
      assert.match(r.body.message, /No free UDP port left in 30510-30539/);
      assert.deepEqual((await held(d)).console, afterDelete.console, 'the console port taken before the UDP failure is given back');
    }

    assert.equal((await d.api('DELETE', `/v2/projects/${first.pid}`)).status, 204);
    assert.deepEqual(await held(d), { console: [], udp: [] }, 'deleting the project gives back every port');

    const second = await fill('full-2');
    assert.equal(second.pcs.length, first.pcs.length);
    assert.equal(second.links, first.links, 'the whole UDP range is usable again');
    assert.deepEqual([second.held.console.length, second.held.udp.length], [first.held.console.length, first.held.udp.length]);
    assert.equal(second.pcs[0].properties.mac_address, '00:50:79:66:68:00');
    await d.api('POST', `/v2/projects/${second.pid}/close`);
    assert.deepEqual(await held(d), { console: [], udp: [] }, 'closing the project gives back every port too');
  });
});

describe('concurrent node creates in a fresh project', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '30550-30559' } })));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('8 parallel creates make 8 nodes on one compute project, each one found and deleted (5 trials)', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const pid = await createProject(d, `parallel-${trial}`);
      const created = await Promise.all(Array.from({ length: 8 }, (_, i) => d.api('POST', `/v2/projects/${pid}/nodes`, { name: `SW${i}`, node_type: 'ethernet_switch' })));
      assert.deepEqual(created.map((r) => r.status), Array(8).fill(201), created.map((r) => r.text).join('\n'));
      for (const { body: node } of created) {
        const onCompute = await d.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${node.node_id}`);
        assert.equal(onCompute.status, 200, `trial ${trial}: ${node.name} is in the compute's project`);
      }
      for (const { body: node } of created) assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${node.node_id}`)).status, 204, `trial ${trial}: delete ${node.name}`);
      assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/nodes`)).body, []);
      assert.equal((await d.api('DELETE', `/v2/projects/${pid}`)).status, 204);
    }
  });
});
