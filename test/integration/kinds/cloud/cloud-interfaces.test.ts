// Issue 26: a cloud port on lo made a packet loop; emuctl's own interfaces (NAT bridge, NAT and docker
// TAPs) were open to any lab too. The policy (compute/host-interface-policy.ts): refused at create
// with a 400 naming the interface, at start of a restored node with a 409; `cloud_interfaces` narrows
// the rest; the interface lists offer only what may be used. An allowed veth still carries frames.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cliEnv, runBin } from '../../../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { linksStartingWith } from '../../../helpers/host-network.js';
import { createLink, createNode, createProject } from '../../../helpers/lab.js';
import { rawZip } from '../../../helpers/raw-zip.js';

const run = promisify(execFile);
/** Names this run owns. */
const ID = `${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
const VETH_A = `ecf${ID}a`;
const VETH_B = `ecf${ID}b`;

const cloudPorts = (...interfaces: string[]) => ({ properties: { ports_mapping: interfaces.map((i, n) => ({ name: `p${n}`, port_number: n, type: 'ethernet', interface: i })) } });

/** Sends one raw Ethernet frame out of `ifname` (AF_PACKET), carrying `marker`. */
async function sendFrame(ifname: string, marker: string): Promise<void> {
  const script = `import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
s.send(bytes.fromhex('ffffffffffff02000000ecf1') + b'\\x88\\xb5' + sys.argv[2].encode().ljust(46, b'.'))`;
  await run('python3', ['-c', script, ifname, marker]);
}

/** A GNS3 2.2 archive: a cloud whose port is `iface`, linked to a hub. */
function cloudArchive(iface: string): Buffer {
  const cloud = randomUUID(), hub = randomUUID();
  const node = (node_id: string, node_type: string, name: string, properties: Record<string, unknown>) => ({ compute_id: 'local', node_id, node_type, name, console: null, console_type: 'none', x: 0, y: 0, z: 1, properties });
  const topology = {
    name: 'cloud-on-lo', project_id: randomUUID(), type: 'topology', version: '2.2.42', revision: 9, auto_start: false, auto_open: false, auto_close: true,
    topology: {
      computes: [], drawings: [],
      nodes: [node(cloud, 'cloud', 'Cloud1', { ports_mapping: [{ name: iface, port_number: 0, type: 'ethernet', interface: iface }] }), node(hub, 'ethernet_hub', 'Hub1', {})],
      links: [{ link_id: randomUUID(), nodes: [{ node_id: cloud, adapter_number: 0, port_number: 0 }, { node_id: hub, adapter_number: 0, port_number: 0 }] }],
    },
  };
  return rawZip([{ name: 'project.gns3', data: JSON.stringify(topology) }]);
}

describe('cloud nodes: the host interfaces a lab may bridge', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-cloud-interfaces-'));
  let d: TestDaemon;
  let narrow: TestDaemon;
  let projectId: string;

  before(async () => {
    await run('ip', ['link', 'add', VETH_A, 'type', 'veth', 'peer', 'name', VETH_B]);
    await run('ip', ['link', 'set', VETH_A, 'up']);
    await run('ip', ['link', 'set', VETH_B, 'up']);
    d = await startTestDaemon({ home: join(tmp, 'default'), env: { EMUCTL_UDP_PORT_RANGE: '29600-29649', EMUCTL_CONSOLE_PORT_RANGE: '29700-29709' } });
    narrow = await startTestDaemon({ home: join(tmp, 'narrow'), env: { EMUCTL_UDP_PORT_RANGE: '29650-29699', EMUCTL_CONSOLE_PORT_RANGE: '29710-29719', EMUCTL_CLOUD_INTERFACES: `${VETH_A},nothing*` } });
    projectId = await createProject(d, 'cloud-interfaces');
  });
  after(async () => {
    await d?.stop();
    await narrow?.stop();
    for (const name of linksStartingWith(`ecf${ID}`)) await run('ip', ['link', 'delete', name]).catch(() => undefined);
    removeHome(tmp);
  });

  it('a cloud on lo, on a NAT bridge or on a NAT or docker TAP is refused with a 400 naming the interface; so are such NIOs on a hub', async () => {
    for (const iface of ['lo', 'emunat4242', 'ent0123abcd0', 'emd0123abcde1']) {
      const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'Bad', node_type: 'cloud', ...cloudPorts(VETH_A, iface) });
      assert.equal(r.status, 400, `${iface}: ${r.text}`);
      assert.match(r.body.message, new RegExp(`interface ${iface} is`), r.text);
    }
    const typedTap = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'Bad', node_type: 'cloud', properties: { ports_mapping: [{ name: 't', port_number: 0, type: 'tap', interface: 'emd0123abcde0' }] } });
    assert.equal(typedTap.status, 400, typedTap.text);
    const nodes = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body;
    assert.deepEqual(nodes, [], 'no refused cloud was made');

    const compute = `/v2/compute/projects/${randomUUID()}`;
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: compute.split('/').pop(), name: 'nio' })).status, 201);
    const hub = await d.api('POST', `${compute}/ethernet_hub/nodes`, { name: 'Hub1' });
    assert.equal(hub.status, 201, hub.text);
    const nio = (port: number) => `${compute}/ethernet_hub/nodes/${hub.body.node_id}/adapters/0/ports/${port}/nio`;
    const onLo = await d.api('POST', nio(0), { type: 'nio_ethernet', ethernet_device: 'lo' });
    assert.equal(onLo.status, 400, onLo.text);
    assert.match(onLo.body.message, /ethernet_device: interface lo is the host's loopback/);
    const dockerTap = await d.api('POST', nio(1), { type: 'nio_tap', tap_device: 'emd0123abcde0' });
    assert.equal(dockerTap.status, 400, dockerTap.text);
    assert.match(dockerTap.body.message, /tap_device: interface emd0123abcde0 is a docker node's TAP/);
  });

  it('the interface lists offer neither lo nor what a cloud may not use', async () => {
    const listed = (await d.api('GET', '/v2/compute/network/interfaces')).body.map((i: { name: string }) => i.name);
    assert.ok(!listed.includes('lo'), `no lo in ${listed.join(', ')}`);
    const cloud = await createNode(d, projectId, 'Cloud1', 'cloud', cloudPorts(VETH_A));
    const offered = cloud.properties.interfaces.map((i: { name: string }) => i.name);
    assert.ok(!offered.includes('lo') && offered.includes(VETH_A), `the cloud offers ${offered.join(', ')}`);
    assert.equal((await d.api('DELETE', `/v2/projects/${projectId}/nodes/${cloud.node_id}`)).status, 204);

    const narrowProject = await createProject(narrow, 'narrow');
    const narrowCloud = await createNode(narrow, narrowProject, 'Cloud1', 'cloud', cloudPorts(VETH_A));
    assert.deepEqual(narrowCloud.properties.interfaces.map((i: { name: string }) => i.name), [VETH_A], 'cloud_interfaces: only the listed interface is offered');
    const others = (await narrow.api('GET', '/v2/compute/network/interfaces')).body.map((i: { name: string }) => i.name);
    assert.ok(others.every((n: string) => n === VETH_A), `the compute lists only ${VETH_A}: ${others.join(', ')}`);
    const refused = await narrow.api('POST', `/v2/projects/${narrowProject}/nodes`, { name: 'Other', node_type: 'cloud', ...cloudPorts(VETH_B) });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.message, new RegExp(`${VETH_B} is not among the host interfaces a cloud may use \\(the cloud_interfaces setting: ${VETH_A}, nothing\\*\\)`));
    const defaults = await createNode(narrow, narrowProject, 'Defaults', 'cloud');
    assert.deepEqual(defaults.ports.map((p: { name: string }) => p.name), [VETH_A], 'a cloud made without ports gets only the allowed interfaces');
  });

  it('an allowed veth still works: a frame sent on its far end reaches the capture on the cloud\'s link', async () => {
    const cloud = await createNode(d, projectId, 'Cloud2', 'cloud', cloudPorts(VETH_A));
    const hub = await createNode(d, projectId, 'Hub2', 'ethernet_hub');
    const link = await createLink(d, projectId, [cloud.node_id, 0], [hub.node_id, 0]);
    const capture = await d.api('POST', `/v2/projects/${projectId}/links/${link.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    const marker = `cloud-if-${ID}`;
    const deadline = Date.now() + 20_000;
    let seen = false;
    while (!seen && Date.now() < deadline) {
      await sendFrame(VETH_B, marker);
      await new Promise((r) => setTimeout(r, 100));
      seen = readFileSync(capture.body.capture_file_path).includes(marker);
    }
    assert.ok(seen, 'the frame crossed the veth, the cloud port and reached the capture');
  });

  it('a lab file with a cloud on lo: lab up fails in one line naming lo, and no cloud is made', async () => {
    const file = join(tmp, 'lo-lab.yml');
    writeFileSync(file, `name: lo-lab
nodes:
  Cloud1: {type: cloud, ports: {0: {type: ethernet, interface: lo, name: loop}}}
  Hub1: {type: ethernet_hub}
links:
  - [Cloud1:loop, Hub1:0]
`);
    const up = await runBin(['--url', d.url, 'lab', 'up', file], cliEnv(join(tmp, 'cli')));
    assert.equal(up.code, 1, `${up.stdout}${up.stderr}`);
    assert.match(up.stderr, /^emuctl: .*interface lo is the host's loopback[^\n]*\n$/);
    const projects = (await d.api('GET', '/v2/projects')).body.filter((p: { name: string }) => p.name === 'lo-lab');
    for (const p of projects) {
      const nodes = (await d.api('GET', `/v2/projects/${p.project_id}/nodes`)).body;
      assert.ok(!nodes.some((n: { node_type: string }) => n.node_type === 'cloud'), 'no cloud was made');
    }
  });

  it('an imported archive with a cloud on lo opens, its link to lo is never wired, and start answers 409 naming lo', async () => {
    const id = randomUUID();
    const r = await fetch(`${d.url}/v2/projects/${id}/import`, { method: 'POST', body: new Uint8Array(cloudArchive('lo')) });
    assert.equal(r.status, 201, await r.text());
    assert.equal((await d.api('POST', `/v2/projects/${id}/open`)).status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${id}/nodes`)).body;
    const cloud = nodes.find((n: { name: string }) => n.name === 'Cloud1');
    assert.ok(cloud, 'the cloud is in the opened project');
    assert.deepEqual((await d.api('GET', `/v2/projects/${id}/links`)).body, [], 'the link to lo was not wired');
    const start = await d.api('POST', `/v2/projects/${id}/nodes/${cloud.node_id}/start`, {});
    assert.equal(start.status, 409, start.text);
    assert.match(start.body.message, /Cloud1 port lo will not open its interface: lo is the host's loopback/);
    const hub = nodes.find((n: { name: string }) => n.name === 'Hub1');
    const relink = await d.api('POST', `/v2/projects/${id}/links`, { nodes: [{ node_id: cloud.node_id, adapter_number: 0, port_number: 0 }, { node_id: hub.node_id, adapter_number: 0, port_number: 0 }] });
    assert.equal(relink.status, 409, `a new link to the port is refused too: ${relink.text}`);
  });
});
