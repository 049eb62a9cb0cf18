// Differences against GNS3 2.2 that a GNS3 client runs into, each fixed to GNS3's behaviour.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connectVpcsConsole } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20450-20499', EMUCTL_CONSOLE_PORT_RANGE: '27560-27579' };
/** Every key of GNS3 2.2's controller node JSON. */
const NODE_KEYS = ['command_line', 'compute_id', 'console', 'console_auto_start', 'console_host', 'console_type', 'custom_adapters', 'first_port_name', 'height', 'label', 'locked', 'name', 'node_directory', 'node_id', 'node_type', 'port_name_format', 'port_segment_size', 'ports', 'project_id', 'properties', 'status', 'symbol', 'template_id', 'width', 'x', 'y', 'z'];

function tcpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

describe('GNS3 2.2 compatibility of the controller and the compute', () => {
  let d: TestDaemon;
  let pid: string;

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    pid = await createProject(d, 'compat');
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it("node JSON carries every key of GNS3's, with real values: the VPCS command line and directory, label, symbol", async () => {
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const pc = await createNode(d, pid, 'PC1', 'vpcs');
    for (const node of [sw, pc]) assert.deepEqual(NODE_KEYS.filter((k) => !(k in node)), [], node.name);
    assert.deepEqual([sw.symbol, sw.node_directory, sw.command_line, sw.label.text, sw.label.x, sw.locked, sw.z], [':/symbols/ethernet_switch.svg', null, null, 'SW1', null, false, 1]);
    assert.equal(pc.symbol, ':/symbols/computer.svg', 'GNS3 gives a node made through the API without a symbol or template the computer');
    assert.equal(pc.node_directory, join(d.home, 'projects', pid, 'project-files', 'vpcs', pc.node_id));
    assert.ok(existsSync(join(pc.node_directory, 'startup.vpc')));
    assert.equal(pc.command_line, '', 'no command line before the first start, as GNS3');
    assert.deepEqual([pc.port_name_format, pc.first_port_name, pc.custom_adapters, pc.template_id], ['Ethernet{0}', null, [], null]);
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.match(started.body.command_line, new RegExp(`^/\\S*vpcs -p ${pc.console} -F -i 1 -m \\d+ -s \\d+ -c \\d+ -t 127\\.0\\.0\\.1 startup\\.vpc$`));
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {});
    const renamed = await d.api('PUT', `/v2/projects/${pid}/nodes/${sw.node_id}`, { name: 'Core 1' });
    assert.deepEqual([renamed.body.name, renamed.body.label.text], ['Core1', 'Core1']);
  });

  it('a QEMU node carries the same keys, with its directory, symbol and GNS3 port names', async () => {
    const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R1', node_type: 'qemu', compute_id: 'local', properties: { adapters: 2 } });
    assert.equal(r.status, 201, r.text);
    const vm = r.body;
    assert.deepEqual(NODE_KEYS.filter((k) => !(k in vm)), []);
    assert.equal(vm.node_directory, join(d.home, 'projects', pid, 'project-files', 'qemu', vm.node_id));
    assert.deepEqual([vm.symbol, vm.command_line, vm.ports.map((p: any) => p.name)], [':/symbols/computer.svg', '', ['Ethernet0', 'Ethernet1']]);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${vm.node_id}`)).status, 204);
  });

  it('any GNS3 node name works, never a 500: "VPCS 1" is VPCS1 (GNS3 drops spaces) and VPCS gets a one-word name', async () => {
    const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'VPCS 1', node_type: 'vpcs' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.name, 'VPCS1');
    assert.match(readFileSync(join(r.body.node_directory, 'startup.vpc'), 'utf8'), /^set pcname VPCS1$/m);
    for (const name of ['PC\ttab', 'ünïcødé ☃', 'semi;colon', 'quote"s\'', '%h', 'a\nb', 'x'.repeat(200)]) {
      const n = await d.api('POST', `/v2/projects/${pid}/nodes`, { name, node_type: 'vpcs' });
      assert.equal(n.status, 201, `${JSON.stringify(name)}: ${n.text}`);
      const script = readFileSync(join(n.body.node_directory, 'startup.vpc'), 'utf8');
      assert.match(script, /^set pcname \S+$/m, `${JSON.stringify(name)}: one word, one line`);
      assert.equal(script.split('\n').filter(Boolean).length, 1);
      assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${n.body.node_id}`)).status, 204);
    }
    const next = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'VPCS 2', node_type: 'vpcs' });
    assert.equal(next.status, 201, 'later creates still work (no MAC left behind)');
    const taken = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'VPCS2', node_type: 'vpcs' });
    assert.equal(taken.status, 201, 'a taken name is renamed, as GNS3 renames it');
    assert.equal(taken.body.name, 'VPCS3');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: '  ', node_type: 'vpcs' })).status, 400);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R{0}', node_type: 'ethernet_hub' })).body.name, 'R1');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R{0}{nope}', node_type: 'ethernet_hub' })).status, 409);
  });

  it('the compute takes GNS3 names as they are and starts VPCS with them as one word (its prompt shows it)', async () => {
    const cp = (await d.api('POST', '/v2/compute/projects', { name: 'compute-side' })).body.project_id;
    const node = await d.api('POST', `/v2/compute/projects/${cp}/vpcs/nodes`, { name: 'PC TEST 1' });
    assert.equal(node.status, 201, node.text);
    assert.equal(node.body.name, 'PC TEST 1');
    const started = await d.api('POST', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}/start`, {});
    assert.equal(started.status, 200, 'GNS3 answers a VPCS start with 200 and the node');
    assert.equal(started.body.status, 'started');
    const console = await connectVpcsConsole('127.0.0.1', started.body.console);
    try {
      assert.equal(console.name, 'PCTEST', 'VPCS 0.5b2 takes at most 6 bytes');
    } finally {
      console.close();
    }
    const suspended = await d.api('POST', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}/suspend`, {});
    assert.equal(suspended.status, 204, 'suspend does nothing on a VPCS, as in GNS3');
    assert.equal((await d.api('GET', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}`)).body.status, 'started');
    const busy = await d.api('PUT', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}`, { console: 27579 });
    assert.equal(busy.status, 409, 'a running VPCS keeps its console');
    assert.equal((await d.api('POST', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}/stop`, {})).status, 204);
    const moved = await d.api('PUT', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}`, { console: 27579, name: 'test' });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.console, 27579);
    const again = await d.api('POST', `/v2/compute/projects/${cp}/vpcs/nodes/${node.body.node_id}/start`, {});
    assert.equal(await tcpPortFree(27579), false, 'VPCS listens on the new console port');
    assert.equal(await tcpPortFree(started.body.console), true, 'and not on the old one');
    assert.equal(again.body.console, 27579);

    const dir = join(d.home, 'projects', cp);
    assert.ok(existsSync(dir));
    assert.equal((await d.api('DELETE', `/v2/compute/projects/${cp}`)).status, 204);
    assert.ok(!existsSync(dir), 'deleting a compute project removes its directory');
    assert.equal(await tcpPortFree(27579), true, 'and stops its VPCS');
  });

  it('suspend on a running VPCS: 200 with the node, and 204 project-wide, as GNS3', async () => {
    const pc = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body.find((n: any) => n.name === 'PC1');
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    const one = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/suspend`, {});
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.status, 'started');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/suspend`, {})).status, 204);
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {});
  });

  it('links: to the same node is a 409 (GNS3: "Cannot connect to itself"); PUT answers 201; an unknown filter stays a 400', async () => {
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
    const sw = nodes.find((n: any) => n.name === 'Core1');
    const self = await d.api('POST', `/v2/projects/${pid}/links`, { nodes: [{ node_id: sw.node_id, adapter_number: 0, port_number: 1 }, { node_id: sw.node_id, adapter_number: 0, port_number: 2 }] });
    assert.equal(self.status, 409);
    assert.equal(self.body.message, 'Cannot connect to itself');
    const pc = nodes.find((n: any) => n.name === 'PC1');
    const link = await createLink(d, pid, [pc.node_id, 0], [sw.node_id, 1]);
    const put = await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { filters: { delay: [5] } });
    assert.equal(put.status, 201);
    assert.equal((await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { filters: { latency: [10] } })).status, 400);
    // Both ends' NIOs carry the filters: each filters the frames that enter from its tunnel, so both directions are filtered.
    const every = { frequency_drop: [5], packet_loss: [10], delay: [5, 1], corrupt: [3], bpf: ['icmp'], rate: [1000], duplicate: [2] };
    assert.equal((await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { filters: every })).status, 201);
    const swStats = (await d.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${sw.node_id}/stats`)).body;
    const pcStats = (await d.api('GET', `/v2/compute/projects/${pid}/vpcs/nodes/${pc.node_id}/stats`)).body;
    assert.deepEqual(swStats.find((p: any) => p.port_number === 1).nio.filters, every);
    assert.deepEqual(pcStats.find((p: any) => p.port_number === 0).nio.filters, every);
    await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { filters: {} });
  });

  it('duplicates nodes on the controller and the compute: next free name, own files, own pcname; a running VPCS is a 409', async () => {
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
    const pc = nodes.find((n: any) => n.name === 'PC1');
    await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/startup.vpc`, { method: 'POST', body: 'set pcname PC1\nip 10.3.3.3/24\n' });
    const copy = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/duplicate`, { x: 10, y: 5 });
    assert.equal(copy.status, 201, copy.text);
    assert.deepEqual([copy.body.name, copy.body.x, copy.body.y, copy.body.z, copy.body.locked], ['PC2', 10, 5, 0, false]);
    assert.notEqual(copy.body.properties.mac_address, pc.properties.mac_address);
    assert.equal(readFileSync(join(copy.body.node_directory, 'startup.vpc'), 'utf8'), 'set pcname PC2\nip 10.3.3.3/24\n');
    const sw = nodes.find((n: any) => n.name === 'Core1');
    const swCopy = await d.api('POST', `/v2/projects/${pid}/nodes/${sw.node_id}/duplicate`, { x: 0, y: 0 });
    assert.equal(swCopy.status, 201, 'a switch duplicates while it runs (always running)');
    assert.deepEqual(swCopy.body.properties.ports_mapping, sw.properties.ports_mapping);
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/duplicate`, { x: 0, y: 0 })).status, 409);
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {});
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/duplicate`, { x: 0 })).status, 400);
    const onCompute = await d.api('POST', `/v2/compute/projects/${pid}/vpcs/nodes/${pc.node_id}/duplicate`, { destination_node_id: randomUUID() });
    assert.equal(onCompute.status, 404, 'the compute duplicates onto a node that exists');
  });

  it('never a 500 for what a client sends: long or odd names, paths in the way', async () => {
    const long = 'x'.repeat(300);
    const project = await d.api('POST', '/v2/projects', { name: long });
    assert.equal(project.status, 400, 'a project name whose .gns3 file would not fit in a file name is refused');
    assert.match(project.body.message, /the limit is 250/);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: long })).status, 400);
    const longest = await d.api('POST', '/v2/projects', { name: 'y'.repeat(250) });
    assert.equal(longest.status, 201, 'the longest name there is');
    assert.equal((await d.api('POST', `/v2/projects/${longest.body.project_id}/duplicate`, { name: 'y'.repeat(250) })).status, 400, "its copy's name (…-1) is too long");
    const unicode = await d.api('POST', '/v2/projects', { name: 'Lab «été» ☃' });
    const exported = await fetch(`${d.url}/v2/projects/${unicode.body.project_id}/export`);
    assert.equal(exported.status, 200);
    assert.equal(exported.headers.get('content-disposition'), `attachment; filename="Lab __t__ _.gns3project"; filename*=UTF-8''${encodeURIComponent('Lab «été» ☃.gns3project')}`);
    await exported.arrayBuffer();
    const file = `${d.url}/v2/projects/${pid}/files`;
    assert.equal((await fetch(`${file}/dir/a.txt`, { method: 'POST', body: 'a' })).status, 201);
    assert.equal((await fetch(`${file}/dir`, { method: 'POST', body: 'b' })).status, 409, 'a directory is in the way');
    assert.equal((await fetch(`${file}/dir/a.txt/b.txt`, { method: 'POST', body: 'c' })).status, 409, 'a file is in the way');
    assert.equal((await fetch(`${file}/${'y'.repeat(300)}`, { method: 'POST', body: 'd' })).status, 400);
    assert.equal((await fetch(`${file}/${'y'.repeat(300)}`)).status, 404);
    for (const body of [[], 'text', { name: 5, template_type: 'vpcs', compute_id: 'local' }, { name: 'T', template_type: 5, compute_id: 'local' }]) {
      assert.equal((await d.api('POST', '/v2/templates', body)).status, 400, JSON.stringify(body));
    }
  });

  it('a project whose only node was deleted, then closed and deleted, leaves no project open on the compute', async () => {
    const other = await createProject(d, 'short-lived');
    const node = await createNode(d, other, 'SW', 'ethernet_switch');
    assert.ok((await d.api('GET', '/v2/compute/projects')).body.some((p: any) => p.project_id === other));
    await d.api('DELETE', `/v2/projects/${other}/nodes/${node.node_id}`);
    assert.equal((await d.api('POST', `/v2/projects/${other}/close`)).status, 204);
    assert.ok(!(await d.api('GET', '/v2/compute/projects')).body.some((p: any) => p.project_id === other), 'closed on the compute');
    assert.equal((await d.api('DELETE', `/v2/projects/${other}`)).status, 204);
    assert.ok(!(await d.api('GET', '/v2/compute/projects')).body.some((p: any) => p.project_id === other));
  });
});
