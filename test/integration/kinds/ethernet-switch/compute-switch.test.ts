import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../../../helpers/daemon.js';
import { ethernetFrame, sleep, udpEndpoint, type UdpEndpoint } from '../../../helpers/udp.js';

const BROADCAST = 'ff:ff:ff:ff:ff:ff';
const MAC_A = '02:00:00:00:00:0a';
const MAC_B = '02:00:00:00:00:0b';

describe('compute: ethernet switch, NIOs and captures', () => {
  let d: TestDaemon;
  let projectId: string;
  let switchId: string;
  let base: string;
  const endpoints: UdpEndpoint[] = [];
  const nio = (lport: number, rport: number) => ({ type: 'nio_udp', lport, rhost: '127.0.0.1', rport });
  const nioPath = (port: number | string, adapter: number | string = 0, node = switchId) => `${base}/ethernet_switch/nodes/${node}/adapters/${adapter}/ports/${port}/nio`;
  const allocate = async () => (await d.api('POST', `${base}/ports/udp`, {})).body.udp_port as number;

  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '30100-30199' } });
    projectId = randomUUID();
    base = `/v2/compute/projects/${projectId}`;
    const created = await d.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'compute-test' });
    assert.equal(created.status, 201);
    const sw = await d.api('POST', `${base}/ethernet_switch/nodes`, { name: 'SW1' });
    assert.equal(sw.status, 201);
    switchId = sw.body.node_id;
  });
  after(async () => {
    for (const e of endpoints) await e.close();
    await d.stop();
    removeHome(d.home);
  });

  it('a new switch has 8 access ports Ethernet0..7 in VLAN 1', async () => {
    const r = await d.api('GET', `${base}/ethernet_switch/nodes/${switchId}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-route'), '/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}');
    assert.equal(r.body.ports_mapping.length, 8);
    assert.deepEqual(r.body.ports_mapping[3], { name: 'Ethernet3', port_number: 3, type: 'access', vlan: 1, ethertype: '' });
    for (const f of ['name', 'node_id', 'project_id', 'ports_mapping', 'status', 'console', 'console_type']) assert.ok(f in r.body, f);
  });

  it('allocates UDP ports from the configured range, never twice', async () => {
    const a = await d.api('POST', `${base}/ports/udp`, {});
    assert.equal(a.status, 201);
    assert.equal(a.headers.get('x-route'), '/v2/compute/projects/{project_id}/ports/udp');
    const b = await allocate();
    assert.ok(a.body.udp_port >= 30100 && a.body.udp_port <= 30199);
    assert.notEqual(a.body.udp_port, b);
    assert.equal((await d.api('POST', `/v2/compute/projects/${randomUUID()}/ports/udp`, {})).status, 404);
  });

  it('skips a port bound by someone else on the host', async () => {
    const taken = createSocket('udp4');
    const next = await allocate();
    // take the following port, then check the allocator steps over it
    await new Promise<void>((r) => taken.bind(next + 1, '127.0.0.1', r));
    try {
      assert.notEqual(await allocate(), next + 1);
    } finally {
      taken.close();
    }
  });

  it('a NIO forwards real frames between two ports; DELETE frees the port', async () => {
    const a = await udpEndpoint();
    const b = await udpEndpoint();
    endpoints.push(a, b);
    const lportA = await allocate();
    const lportB = await allocate();
    const added = await d.api('POST', nioPath(0), nio(lportA, a.port));
    assert.equal(added.status, 201, added.text);
    assert.equal(added.headers.get('x-route'), '/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/nio');
    assert.deepEqual({ ...added.body, filters: undefined, suspend: undefined }, { ...nio(lportA, a.port), filters: undefined, suspend: undefined });
    assert.equal((await d.api('POST', nioPath(1), nio(lportB, b.port))).status, 201);

    await a.send(ethernetFrame(BROADCAST, MAC_A), lportA);
    const atB = await b.next();
    assert.equal(atB.subarray(6, 12).toString('hex'), MAC_A.replace(/:/g, ''));
    await b.send(ethernetFrame(MAC_A, MAC_B), lportB);
    const atA = await a.next();
    assert.equal(atA.subarray(0, 6).toString('hex'), MAC_A.replace(/:/g, ''));

    const table = await d.api('GET', `${base}/ethernet_switch/nodes/${switchId}/mac_table`);
    assert.equal(table.status, 200);
    assert.ok(table.body.some((e: { mac: string; port: number; vlan: number }) => e.mac === MAC_A && e.port === 0 && e.vlan === 1));
    const stats = await d.api('GET', `${base}/ethernet_switch/nodes/${switchId}/stats`);
    const port0 = stats.body.find((p: { port_number: number }) => p.port_number === 0);
    assert.ok(port0.framesIn >= 1 && port0.framesOut >= 1);
    assert.equal(port0.nio.lport, lportA);

    assert.equal((await d.api('DELETE', nioPath(1))).status, 204);
    assert.equal((await d.api('DELETE', nioPath(1))).status, 404, 'no NIO left on that port');
    const rebind = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      rebind.once('error', reject);
      rebind.bind(lportB, '127.0.0.1', resolve);
    });
    rebind.close();
    assert.equal((await d.api('DELETE', nioPath(0))).status, 204);
  });

  it('400 for NIO bodies that fail the schema, naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'nio_udp', rhost: '127.0.0.1', rport: 1000 }, /lport/],
      [{ type: 'nio_udp', lport: 30150, rport: 1000 }, /rhost/],
      [{ type: 'nio_udp', lport: 30150, rhost: '127.0.0.1' }, /rport/],
      [{ type: 'nio_udp', lport: 70000, rhost: '127.0.0.1', rport: 1000 }, /lport/],
      [{ type: 'nio_udp', lport: 0, rhost: '127.0.0.1', rport: 1000 }, /lport/],
      [{ type: 'nio_udp', lport: 30150, rhost: '127.0.0.1', rport: 1000, colour: 1 }, /colour/],
      [{ type: 'nio_carrier_pigeon' }, /type/],
      [{ lport: 1 }, /type/],
    ];
    for (const [body, field] of cases) {
      const r = await d.api('POST', nioPath(2), body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.message, field);
    }
    assert.equal((await d.api('POST', nioPath(2), '{not json')).status, 400);
  });

  it('the compute checks NIO filters where they enter (POST and PUT): 400 naming the filter, and the port stays free', async () => {
    const lport = await allocate();
    for (const [filters, message] of [[{ packet_loss: [150] }, /packet_loss: Chance 150 is out of range 0\.\.100/], [{ bogus: [1] }, /Unknown filter 'bogus'/]] as const) {
      const r = await d.api('POST', nioPath(3), { ...nio(lport, 9), filters });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, message);
    }
    assert.equal((await d.api('DELETE', nioPath(3))).status, 404, 'no NIO was added');
    const added = await d.api('POST', nioPath(3), { ...nio(lport, 9), filters: { delay: [20, 5] } });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(added.body.filters, { delay: [20, 5] });
    const bad = await d.api('PUT', nioPath(3), { filters: { corrupt: [101] } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.message, /corrupt/);
    const changed = await d.api('PUT', nioPath(3), { filters: { corrupt: [5] } });
    assert.equal(changed.status, 201, changed.text);
    assert.deepEqual(changed.body.filters, { corrupt: [5] });
    assert.equal((await d.api('DELETE', nioPath(3))).status, 204);
  });

  it('404 for unknown project, node, adapter or port; non-digit segments do not match', async () => {
    const body = nio(30160, 30161);
    assert.equal((await d.api('POST', `/v2/compute/projects/${randomUUID()}/ethernet_switch/nodes/${switchId}/adapters/0/ports/0/nio`, body)).status, 404);
    assert.equal((await d.api('POST', nioPath(0, 0, randomUUID()), body)).status, 404);
    assert.equal((await d.api('POST', nioPath(0, 1), body)).status, 404);
    assert.equal((await d.api('POST', nioPath(42), body)).status, 404);
    const letters = await d.api('POST', nioPath('x1'), body);
    assert.equal(letters.status, 404);
    assert.equal(letters.headers.get('x-route'), null, 'no route matched');
    assert.equal((await d.api('POST', nioPath(0, 0, 'not-a-uuid'), body)).status, 400);
  });

  it('409 when the port has a NIO or the lport cannot be bound; 409 for unsupported NIO types', async () => {
    const lport = await allocate();
    assert.equal((await d.api('POST', nioPath(3), nio(lport, 30198))).status, 201);
    const twice = await d.api('POST', nioPath(3), nio(await allocate(), 30198));
    assert.equal(twice.status, 409);
    assert.match(twice.body.message, /already has a NIO/);
    const taken = createSocket('udp4');
    await new Promise<void>((r) => taken.bind(30197, '127.0.0.1', r));
    try {
      const busy = await d.api('POST', nioPath(4), nio(30197, 30198));
      assert.equal(busy.status, 409);
      assert.match(busy.body.message, /30197/);
    } finally {
      taken.close();
    }
    const vde = await d.api('POST', nioPath(5), { type: 'nio_vde', control_file: '/tmp/vde.ctl', local_file: '/tmp/vde.local' });
    assert.equal(vde.status, 409);
    assert.match(vde.body.message, /not supported on this compute/);
    assert.equal((await d.api('POST', nioPath(5), { type: 'nio_null' })).status, 201);
    assert.equal((await d.api('DELETE', nioPath(5))).status, 204);
    assert.equal((await d.api('DELETE', nioPath(3))).status, 204);
  });

  it('captures a port into a pcap file; a bad file name is a 400', async () => {
    const a = await udpEndpoint();
    const b = await udpEndpoint();
    endpoints.push(a, b);
    const la = await allocate();
    const lb = await allocate();
    await d.api('POST', nioPath(6), nio(la, a.port));
    await d.api('POST', nioPath(7), nio(lb, b.port));
    const capturePath = `${base}/ethernet_switch/nodes/${switchId}/adapters/0/ports/6`;
    for (const name of ['../escape.pcap', 'a/b.pcap', 'nul\u0000.pcap']) {
      const bad = await d.api('POST', `${capturePath}/start_capture`, { capture_file_name: name });
      assert.equal(bad.status, 400, name);
    }
    assert.equal((await d.api('POST', `${capturePath}/start_capture`, { capture_file_name: 'x.pcap', data_link_type: 'DLT_NOPE' })).status, 400);
    const started = await d.api('POST', `${capturePath}/start_capture`, { capture_file_name: 'port6.pcap' });
    assert.equal(started.status, 200, started.text);
    assert.match(started.body.pcap_file_path, /project-files\/captures\/port6\.pcap$/);
    for (let i = 0; i < 5; i++) await a.send(ethernetFrame(BROADCAST, MAC_A), la);
    for (let i = 0; i < 5; i++) await b.next();
    // Stopping the capture flushes what the writer batched: the file is complete once it answers.
    assert.equal((await d.api('POST', `${capturePath}/stop_capture`, {})).status, 204);
    assert.equal((await d.api('POST', `${capturePath}/stop_capture`, {})).status, 409);
    const file = readFileSync(started.body.pcap_file_path);
    assert.equal(file.readUInt32LE(0), 0xa1b2c3d4);
    assert.equal(file.readUInt32LE(20), 1, 'DLT_EN10MB');
    assert.ok(file.length >= 24 + 5 * (16 + 14), `pcap holds the frames (${file.length} bytes)`);
  });

  it('PUT ports_mapping re-maps ports; a port with a NIO cannot disappear', async () => {
    const sw = await d.api('POST', `${base}/ethernet_switch/nodes`, { name: 'SW2', ports_mapping: [
      { name: 'p0', port_number: 0, type: 'access', vlan: 10 },
      { name: 'trunk', port_number: 1, type: 'dot1q', vlan: 1 },
    ] });
    assert.equal(sw.status, 201);
    const id = sw.body.node_id;
    const lport = await allocate();
    await d.api('POST', nioPath(0, 0, id), nio(lport, 30199));
    const drop = await d.api('PUT', `${base}/ethernet_switch/nodes/${id}`, { ports_mapping: [{ name: 'trunk', port_number: 1, type: 'dot1q', vlan: 1 }] });
    assert.equal(drop.status, 409);
    const moved = await d.api('PUT', `${base}/ethernet_switch/nodes/${id}`, { name: 'SW2b', ports_mapping: [
      { name: 'p0', port_number: 0, type: 'access', vlan: 20 },
      { name: 'q', port_number: 2, type: 'qinq', vlan: 100, ethertype: '0x88A8' },
    ] });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.name, 'SW2b');
    assert.equal(moved.body.ports_mapping[0].vlan, 20);
    const dup = await d.api('POST', `${base}/ethernet_switch/nodes`, { name: 'bad', ports_mapping: [{ name: 'a', port_number: 0, type: 'access', vlan: 1 }, { name: 'b', port_number: 0, type: 'access', vlan: 1 }] });
    assert.equal(dup.status, 400);
    const badType = await d.api('POST', `${base}/ethernet_switch/nodes`, { name: 'bad', ports_mapping: [{ name: 'a', port_number: 0, type: 'trunk', vlan: 1 }] });
    assert.equal(badType.status, 400);
    assert.equal((await d.api('POST', `${base}/ethernet_switch/nodes/${id}/stop`, {})).status, 204);
    assert.equal((await d.api('GET', `${base}/ethernet_switch/nodes/${id}`)).body.status, 'stopped');
    assert.equal((await d.api('POST', `${base}/ethernet_switch/nodes/${id}/start`)).status, 204);
    assert.equal((await d.api('DELETE', `${base}/ethernet_switch/nodes/${id}`)).status, 204);
    assert.equal((await d.api('GET', `${base}/ethernet_switch/nodes/${id}`)).status, 404);
  });

  it('a hub floods to every other port', async () => {
    const hub = await d.api('POST', `${base}/ethernet_hub/nodes`, { name: 'HUB1' });
    assert.equal(hub.status, 201);
    const eps = [await udpEndpoint(), await udpEndpoint(), await udpEndpoint()];
    endpoints.push(...eps);
    const lports: number[] = [];
    for (let i = 0; i < 3; i++) {
      lports.push(await allocate());
      const r = await d.api('POST', `${base}/ethernet_hub/nodes/${hub.body.node_id}/adapters/0/ports/${i}/nio`, nio(lports[i], eps[i].port));
      assert.equal(r.status, 201);
    }
    await eps[0].send(ethernetFrame(MAC_B, MAC_A), lports[0]);
    await eps[1].next();
    await eps[2].next();
    await sleep(50);
    assert.equal(eps[0].received.length, 0, 'not reflected');
  });

  it('closing the compute project frees its nodes and ports', async () => {
    assert.equal((await d.api('POST', `${base}/close`, {})).status, 204);
    assert.equal((await d.api('GET', base)).status, 404);
  });
});
