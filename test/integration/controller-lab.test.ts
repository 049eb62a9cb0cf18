import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

describe('controller: nodes, links, captures, filters', () => {
  let d: TestDaemon;
  let pid: string;
  let sw: any;
  let hub: any;
  let link: any;

  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '30200-30299' } });
    pid = await createProject(d, 'lab');
    sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    hub = await createNode(d, pid, 'HUB1', 'ethernet_hub');
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('creates nodes with GNS3 fields and ports', async () => {
    for (const f of ['node_id', 'project_id', 'compute_id', 'name', 'node_type', 'status', 'console', 'console_type', 'console_host', 'properties', 'ports', 'x', 'y', 'z']) assert.ok(f in sw, f);
    assert.equal(sw.compute_id, 'local');
    assert.equal(sw.status, 'started');
    assert.equal(sw.ports.length, 8);
    assert.deepEqual(sw.ports[0], { name: 'Ethernet0', short_name: 'e0', adapter_number: 0, port_number: 0, link_type: 'ethernet', data_link_types: { Ethernet: 'DLT_EN10MB' } });
    assert.equal(sw.properties.ports_mapping.length, 8);
    const list = await d.api('GET', `/v2/projects/${pid}/nodes`);
    assert.equal(list.body.length, 2);
  });

  it('node errors: unknown type 400 listing the known ones, unknown project 404, closed project 409; a taken name is renamed as GNS3 does', async () => {
    const unknown = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R1', node_type: 'dynamips' });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /ethernet_switch.*vpcs/);
    const again = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW1', node_type: 'ethernet_switch' });
    assert.equal(again.status, 201, again.text);
    assert.notEqual(again.body.name, 'SW1');
    assert.match(again.body.name, /^SW\d+$/);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${again.body.node_id}`)).status, 204);
    assert.equal((await d.api('POST', `/v2/projects/${randomUUID()}/nodes`, { name: 'X', node_type: 'ethernet_switch' })).status, 404);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { node_type: 'ethernet_switch' })).status, 400);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'X', node_type: 'ethernet_switch', compute_id: 'nowhere' })).status, 404);
    const other = await createProject(d, 'closed-one');
    await d.api('POST', `/v2/projects/${other}/close`);
    assert.equal((await d.api('POST', `/v2/projects/${other}/nodes`, { name: 'X', node_type: 'ethernet_switch' })).status, 409);
    assert.equal((await d.api('GET', `/v2/projects/${pid}/nodes/${randomUUID()}`)).status, 404);
  });

  it('node properties go through the compute schema, in process as over HTTP', async () => {
    const bad = await d.api('PUT', `/v2/projects/${pid}/nodes/${sw.node_id}`, { properties: { ports_mapping: [{ name: 'p0', port_number: 0, type: 'access', vlan: 4095 }] } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /vlan/);
    const upper = await d.api('GET', `/v2/compute/projects/${pid.toUpperCase()}/ethernet_switch/nodes/${sw.node_id.toUpperCase()}`);
    assert.equal(upper.status, 200, 'UUIDs are case-insensitive');
  });

  it('updates a node: rename and move are kept', async () => {
    const r = await d.api('PUT', `/v2/projects/${pid}/nodes/${hub.node_id}`, { name: 'HUB-A', x: 100, y: -50 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.name, 'HUB-A');
    assert.equal(r.body.x, 100);
  });

  it('creates a link: a nio_udp on each end pointing at the other', async () => {
    link = await createLink(d, pid, [sw.node_id, 1], [hub.node_id, 2]);
    for (const f of ['link_id', 'project_id', 'link_type', 'nodes', 'capturing', 'capture_file_name', 'capture_file_path', 'capture_compute_id', 'filters', 'link_style', 'suspend']) assert.ok(f in link, f);
    assert.equal(link.link_type, 'ethernet');
    assert.equal(link.capturing, false);
    const stats = await d.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${sw.node_id}/stats`);
    const swNio = stats.body.find((p: any) => p.port_number === 1).nio;
    const hubStats = await d.api('GET', `/v2/compute/projects/${pid}/ethernet_hub/nodes/${hub.node_id}/stats`);
    const hubNio = hubStats.body.find((p: any) => p.port_number === 2).nio;
    assert.equal(swNio.rport, hubNio.lport);
    assert.equal(hubNio.rport, swNio.lport);
    assert.equal(swNio.rhost, '127.0.0.1');
  });

  it('link errors: port in use 409, same port 409, unknown node or port 404, not two ends 400', async () => {
    const body = (a: [string, number], b: [string, number]) => ({ nodes: [{ node_id: a[0], adapter_number: 0, port_number: a[1] }, { node_id: b[0], adapter_number: 0, port_number: b[1] }] });
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links`, body([sw.node_id, 1], [hub.node_id, 3]))).status, 409);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links`, body([sw.node_id, 4], [sw.node_id, 4]))).status, 409);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links`, body([sw.node_id, 4], [randomUUID(), 0]))).status, 404);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links`, body([sw.node_id, 4], [hub.node_id, 99]))).status, 404);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links`, { nodes: [{ node_id: sw.node_id, adapter_number: 0, port_number: 4 }] })).status, 400);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links`, { nodes: [] })).status, 400);
  });

  it('start_capture: {} gives the GNS3 default name in the captures dir; a restart starts a fresh file', async () => {
    const r = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {});
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('x-route'), '/v2/projects/{project_id}/links/{link_id}/start_capture');
    assert.equal(r.body.capturing, true);
    assert.equal(r.body.capture_file_name, 'SW1_0-1_to_HUB-A_0-2.pcap');
    assert.match(r.body.capture_file_path, new RegExp(`${pid}/project-files/captures/SW1_0-1_to_HUB-A_0-2\\.pcap$`));
    assert.equal(r.body.capture_compute_id, 'local');
    assert.ok(existsSync(r.body.capture_file_path));
    assert.equal(readFileSync(r.body.capture_file_path).readUInt32LE(20), 1);
    const again = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, { capture_file_name: 'serial.pcap', data_link_type: 'DLT_PPP_SERIAL' });
    assert.equal(again.status, 201);
    assert.equal(readFileSync(again.body.capture_file_path).readUInt32LE(20), 50, 'DLT_PPP_SERIAL');
    const listed = await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`);
    assert.equal(listed.body.capture_file_name, 'serial.pcap');
  });

  it('start_capture: 400 for bad names, DLTs, properties and JSON; 404 for unknown link or project', async () => {
    const url = `/v2/projects/${pid}/links/${link.link_id}/start_capture`;
    for (const body of [{ capture_file_name: 'a/b.pcap' }, { capture_file_name: '../x.pcap' }, { capture_file_name: 'x\u0000.pcap' }, { capture_file_name: '..' },
      { data_link_type: 'DLT_WIFI' }, { data_link_type: 1 }, { capture_file_name: 'ok.pcap', extra: true }, { capture_file_name: 5 }]) {
      const r = await d.api('POST', url, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.status, 400);
    }
    assert.equal((await d.api('POST', url, '{"capture_file_name": ')).status, 400);
    const long = await d.api('POST', url, { capture_file_name: `${'c'.repeat(256)}.pcap` });
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.message, 'capture_file_name is too long (261 bytes): the limit is 255 bytes');
    const compute = await d.api('POST', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${link.nodes[0].node_id}/adapters/0/ports/${link.nodes[0].port_number}/start_capture`, { capture_file_name: 'd'.repeat(300) });
    assert.equal(compute.status, 400, 'the compute route too');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links/${randomUUID()}/start_capture`, {})).status, 404);
    assert.equal((await d.api('POST', `/v2/projects/${randomUUID()}/links/${link.link_id}/start_capture`, {})).status, 404);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links/not-a-uuid/start_capture`, {})).status, 400);
  });

  it('POST nodes/stop, nodes/suspend and nodes/start act on every node at once (204); as in GNS3, switches and hubs stay started through a project-wide stop or suspend', async () => {
    for (const n of [sw, hub]) assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/stop`, {})).body.status, 'stopped');
    let r = await d.api('POST', `/v2/projects/${pid}/nodes/start`, {});
    assert.equal(r.status, 204, r.text);
    assert.ok((await d.api('GET', `/v2/projects/${pid}/nodes`)).body.every((n: any) => n.status === 'started'), 'a project-wide start starts them again');
    for (const action of ['stop', 'suspend']) {
      r = await d.api('POST', `/v2/projects/${pid}/nodes/${action}`, {});
      assert.equal(r.status, 204, r.text);
      const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
      assert.ok(nodes.length > 0);
      for (const n of nodes) assert.equal(n.status, 'started', `${n.name} after nodes/${action}`);
    }
  });

  it('start_capture is a 409 when neither end of the link is running', async () => {
    for (const n of [sw, hub]) assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/stop`, {})).body.status, 'stopped');
    const r = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {});
    assert.equal(r.status, 409);
    assert.match(r.body.message, /no running device/);
    for (const n of [sw, hub]) assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/start`, {})).body.status, 'started');
  });

  it('stop_capture gives 201 with capturing false; pcap then answers 409', async () => {
    const r = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/stop_capture`, {});
    assert.equal(r.status, 201);
    assert.equal(r.body.capturing, false);
    assert.equal(r.body.capture_file_name, 'serial.pcap', 'the last file is still named, as GNS3 does');
    assert.equal((await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}/pcap`)).status, 409);
  });

  it('filters: available_filters lists GNS3 names; out of range or unknown is a 400; 0 turns off', async () => {
    const av = await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}/available_filters`);
    assert.deepEqual(av.body.map((f: any) => f.type), ['frequency_drop', 'packet_loss', 'delay', 'corrupt', 'bpf', 'rate', 'duplicate']);
    const url = `/v2/projects/${pid}/links/${link.link_id}`;
    for (const filters of [{ packet_loss: [101] }, { delay: [-1] }, { frequency_drop: [-2] }, { warp: [1] }, { delay: ['soon'] }, { bpf: ['icmp and and'] }]) {
      const r = await d.api('PUT', url, { filters });
      assert.equal(r.status, 400, JSON.stringify(filters));
    }
    const set = await d.api('PUT', url, { filters: { delay: [50, 5], packet_loss: [0], bpf: ['icmp'] } });
    assert.equal(set.status, 201, set.text);
    assert.deepEqual(set.body.filters, { delay: [50, 5], bpf: ['icmp'] });
    const sus = await d.api('PUT', url, { suspend: true });
    assert.equal(sus.body.suspend, true);
    const topology = JSON.parse(readFileSync(`${d.home}/projects/${pid}/lab.gns3`, 'utf8'));
    assert.deepEqual(topology.topology.links[0].filters, { delay: [50, 5], bpf: ['icmp'] });
    assert.equal(topology.topology.links[0].suspend, true);
  });

  it('closing and reopening the project restores nodes and links', async () => {
    const closed = await d.api('POST', `/v2/projects/${pid}/close`);
    assert.equal(closed.status, 204, 'GNS3 answers a close with 204 and no body');
    assert.equal(closed.text, '');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/open`)).status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
    assert.deepEqual(nodes.map((n: any) => n.name).sort(), ['HUB-A', 'SW1']);
    const links = (await d.api('GET', `/v2/projects/${pid}/links`)).body;
    assert.equal(links.length, 1);
    assert.equal(links[0].suspend, true);
    const stats = await d.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${sw.node_id}/stats`);
    assert.equal(stats.body.find((p: any) => p.port_number === 1).nio.type, 'nio_udp');
  });

  it('filters in a topology file are checked where they enter: normalised when good, the link left out when bad', async () => {
    const other = await createProject(d, 'restore');
    const [a, b] = [await createNode(d, other, 'RA', 'ethernet_switch'), await createNode(d, other, 'RB', 'ethernet_switch')];
    const kept = await createLink(d, other, [a.node_id, 0], [b.node_id, 0]);
    const refused = await createLink(d, other, [a.node_id, 1], [b.node_id, 1]);
    assert.equal((await d.api('POST', `/v2/projects/${other}/close`)).status, 204);
    // The file, changed by hand, loaded as a project of its own.
    const saved = JSON.parse(readFileSync(`${d.home}/projects/${other}/restore.gns3`, 'utf8'));
    for (const entry of saved.topology.links) entry.filters = entry.link_id === kept.link_id ? { delay: ['20', 5], packet_loss: [0] } : { packet_loss: [150] };
    const edited = randomUUID();
    mkdirSync(`${d.home}/projects/${edited}`);
    writeFileSync(`${d.home}/projects/${edited}/edited.gns3`, JSON.stringify({ ...saved, project_id: edited, name: 'edited' }));
    const loaded = await d.api('POST', '/v2/projects/load', { path: `${d.home}/projects/${edited}/edited.gns3` });
    assert.equal(loaded.status, 201, loaded.text);
    const links = (await d.api('GET', `/v2/projects/${edited}/links`)).body;
    assert.deepEqual(links.map((l: any) => [l.link_id, l.filters]), [[kept.link_id, { delay: [20, 5] }]]);
    assert.notEqual(kept.link_id, refused.link_id);
    for (const id of [edited, other]) assert.equal((await d.api('DELETE', `/v2/projects/${id}`)).status, 204);
  });

  it('deleting a node removes its links; deleting a link frees both ports', async () => {
    const extra = await createNode(d, pid, 'SW2', 'ethernet_switch');
    const l2 = await createLink(d, pid, [sw.node_id, 5], [extra.node_id, 0]);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${extra.node_id}`)).status, 204);
    assert.equal((await d.api('GET', `/v2/projects/${pid}/links/${l2.link_id}`)).status, 404);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/links/${link.link_id}`)).status, 204);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/links/${link.link_id}`)).status, 404);
    const stats = await d.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${sw.node_id}/stats`);
    assert.ok(stats.body.every((p: any) => p.nio === null));
  });
});
