import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20350-20399', EMUCTL_CONSOLE_PORT_RANGE: '27520-27539' };

function tcpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

describe('project extras: drawings, stats, files, load, snapshots, GUI routes', () => {
  let d: TestDaemon;
  let pid: string;
  let project: any;

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    pid = await createProject(d, 'extras');
    project = (await d.api('GET', `/v2/projects/${pid}`)).body;
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });
  const topologyFile = () => JSON.parse(readFileSync(join(project.path, project.filename), 'utf8'));

  it('drawings: create, list, get, update (201, as GNS3), delete; kept in the .gns3 file and across close/open', async () => {
    const base = `/v2/projects/${pid}/drawings`;
    const created = await d.api('POST', base, { svg: '<svg width="10" height="10"><rect width="10" height="10"/></svg>', x: 10, y: 20 });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual({ ...created.body, drawing_id: 'id' }, { drawing_id: 'id', project_id: pid, svg: '<svg width="10" height="10"><rect width="10" height="10"/></svg>', x: 10, y: 20, z: 2, locked: false, rotation: 0 });
    const id = created.body.drawing_id;
    const moved = await d.api('PUT', `${base}/${id}`, { x: 42, rotation: 90 });
    assert.equal(moved.status, 201);
    assert.deepEqual([moved.body.x, moved.body.y, moved.body.rotation], [42, 20, 90]);
    assert.equal((await d.api('GET', base)).body.length, 1);
    assert.deepEqual(topologyFile().topology.drawings.map((x: any) => [x.drawing_id, x.x]), [[id, 42]]);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/close`)).status, 204);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/open`)).status, 201);
    assert.equal((await d.api('GET', `${base}/${id}`)).body.x, 42, 'restored from the .gns3 file');
    assert.equal((await d.api('PUT', `${base}/${id}`, { rotation: 400 })).status, 400);
    assert.equal((await d.api('PUT', `${base}/${id}`, { colour: 'red' })).status, 400);
    assert.equal((await d.api('GET', `${base}/00000000-0000-4000-8000-000000000000`)).status, 404);
    await d.api('PUT', `${base}/${id}`, { locked: true });
    assert.equal((await d.api('DELETE', `${base}/${id}`)).status, 409, 'a locked drawing stays');
    await d.api('PUT', `${base}/${id}`, { locked: false });
    assert.equal((await d.api('DELETE', `${base}/${id}`)).status, 204);
    assert.deepEqual(topologyFile().topology.drawings, []);
  });

  it('stats count nodes, links, drawings and snapshots, opened or closed', async () => {
    const sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const hub = await createNode(d, pid, 'HUB1', 'ethernet_hub');
    await createLink(d, pid, [sw.node_id, 0], [hub.node_id, 0]);
    await d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg></svg>' });
    const stats = await d.api('GET', `/v2/projects/${pid}/stats`);
    assert.equal(stats.headers.get('x-route'), '/v2/projects/{project_id}/stats');
    assert.deepEqual(stats.body, { nodes: 2, links: 1, drawings: 1, snapshots: 0 });
    await d.api('POST', `/v2/projects/${pid}/close`);
    assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/stats`)).body, { nodes: 2, links: 1, drawings: 1, snapshots: 0 });
    await d.api('POST', `/v2/projects/${pid}/open`);
    assert.equal((await d.api('GET', '/v2/projects/00000000-0000-4000-8000-000000000000/stats')).status, 404);
  });

  it('project files: written and read inside the project only (traversal is a 400)', async () => {
    const url = `${d.url}/v2/projects/${pid}/files/notes/README.txt`;
    const put = await fetch(url, { method: 'POST', body: 'hello lab\n' });
    assert.equal(put.status, 201);
    assert.equal(readFileSync(join(project.path, 'notes', 'README.txt'), 'utf8'), 'hello lab\n');
    const got = await fetch(url);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), 'hello lab\n');
    for (const bad of ['..%2F..%2Fescape.txt', 'notes%2F..%2F..%2Fescape.txt', '%2Fetc%2Fpasswd', 'a%00b']) {
      const r = await fetch(`${d.url}/v2/projects/${pid}/files/${bad}`, { method: 'POST', body: 'x' });
      assert.equal(r.status, 400, bad);
      assert.equal((await fetch(`${d.url}/v2/projects/${pid}/files/${bad}`)).status, 400, bad);
    }
    assert.ok(!existsSync(join(project.path, '..', 'escape.txt')));
    assert.equal((await fetch(`${d.url}/v2/projects/${pid}/files/none.txt`)).status, 404);
  });

  it("node files: a VPCS's startup.vpc through the controller; traversal is a 400", async () => {
    const pc = await createNode(d, pid, 'PC1', 'vpcs');
    const url = `${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/startup.vpc`;
    const got = await fetch(url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('x-route'), '/v2/projects/{project_id}/nodes/{node_id}/files/{path:.+}');
    assert.match(await got.text(), /^set pcname PC1$/m);
    assert.equal((await fetch(url, { method: 'POST', body: 'set pcname PC1\nip 10.9.9.1/24\n' })).status, 201);
    assert.equal(readFileSync(join(pc.node_directory, 'startup.vpc'), 'utf8'), 'set pcname PC1\nip 10.9.9.1/24\n');
    assert.equal((await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/..%2F..%2F..%2Fextras.gns3`)).status, 400);
    assert.equal((await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/..%2Fx`, { method: 'POST', body: 'x' })).status, 400);
  });

  it('POST /v2/projects/load opens the project of a .gns3 file inside the projects directory', async () => {
    const other = (await d.api('POST', '/v2/projects', { name: 'loadable' })).body;
    await d.api('POST', `/v2/projects/${other.project_id}/close`);
    const loaded = await d.api('POST', '/v2/projects/load', { path: join(other.path, other.filename) });
    assert.equal(loaded.status, 201, loaded.text);
    assert.deepEqual([loaded.body.project_id, loaded.body.status], [other.project_id, 'opened']);
    assert.equal((await d.api('POST', '/v2/projects/load', { path: '/etc/passwd.gns3' })).status, 400);
    assert.equal((await d.api('POST', '/v2/projects/load', { path: join(other.path, 'missing.gns3') })).status, 404);
    assert.equal((await d.api('POST', '/v2/projects/load', { path: join(other.path, 'notes.txt') })).status, 400);
    assert.equal((await d.api('POST', '/v2/projects/load', {})).status, 400);
  });

  it('snapshots: taken, listed, refused while a VPCS runs, names checked, deleted', async () => {
    const base = `/v2/projects/${pid}/snapshots`;
    const snap = await d.api('POST', base, { name: 'first' });
    assert.equal(snap.status, 201, snap.text);
    assert.deepEqual(Object.keys(snap.body).sort(), ['created_at', 'name', 'project_id', 'snapshot_id']);
    assert.ok(Math.abs(snap.body.created_at - Date.now() / 1000) < 60);
    const files = readdirSync(join(project.path, 'snapshots'));
    assert.equal(files.length, 1);
    assert.match(files[0], /^first_\d{6}_\d{6}\.gns3project$/);
    assert.equal((await d.api('POST', base, { name: 'first' })).status, 409);
    for (const name of ['a/b', '../up', '.hidden']) assert.equal((await d.api('POST', base, { name })).status, 400, name);
    const list = await d.api('GET', base);
    assert.deepEqual(list.body, [snap.body], 'the id is stable: derived from the file name');
    assert.equal((await d.api('GET', `/v2/projects/${pid}/stats`)).body.snapshots, 1);

    const pc = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body.find((n: any) => n.name === 'PC1');
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    const busy = await d.api('POST', base, { name: 'busy' });
    assert.equal(busy.status, 409, 'GNS3 refuses to export a project with a running end host');
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {});

    const other = await d.api('POST', base, { name: 'second' });
    assert.equal((await d.api('DELETE', `${base}/${other.body.snapshot_id}`)).status, 204);
    assert.equal((await d.api('DELETE', `${base}/${other.body.snapshot_id}`)).status, 404);
    assert.equal((await d.api('POST', `${base}/${other.body.snapshot_id}/restore`, {})).status, 404);
  });

  it('restoring a snapshot puts the topology back as it was (nodes, links, drawings, node files), every node stopped', async () => {
    const before = await d.api('GET', `/v2/projects/${pid}/nodes`);
    const beforeLinks = (await d.api('GET', `/v2/projects/${pid}/links`)).body;
    const snapshot = (await d.api('GET', `/v2/projects/${pid}/snapshots`)).body.find((s: any) => s.name === 'first');
    const pc = before.body.find((n: any) => n.name === 'PC1');
    const sw = before.body.find((n: any) => n.name === 'SW1');

    // Change everything: a node goes, one comes, a link goes, a rename, a filter, a drawing, the startup script; PC1 runs.
    await d.api('DELETE', `/v2/projects/${pid}/nodes/${before.body.find((n: any) => n.name === 'HUB1').node_id}`);
    await createNode(d, pid, 'NEW', 'ethernet_hub');
    await d.api('PUT', `/v2/projects/${pid}/nodes/${sw.node_id}`, { name: 'SW-renamed' });
    await d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg>later</svg>' });
    await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/startup.vpc`, { method: 'POST', body: 'set pcname PC1\nip 10.1.1.1/24\n' });
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.body.status, 'started');
    assert.equal(await tcpPortFree(pc.console), false, 'PC1 runs');

    const restored = await d.api('POST', `/v2/projects/${pid}/snapshots/${snapshot.snapshot_id}/restore`, {});
    assert.equal(restored.status, 201, restored.text);
    assert.equal(restored.body.status, 'opened');
    assert.equal(restored.body.name, 'extras');

    const after = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
    assert.deepEqual(after.map((n: any) => [n.node_id, n.name]).sort(), before.body.map((n: any) => [n.node_id, n.name]).sort());
    for (const n of after.filter((x: any) => x.node_type === 'vpcs')) assert.equal(n.status, 'stopped');
    assert.equal(await tcpPortFree(pc.console), true, 'the VPCS process is gone');
    const afterLinks = (await d.api('GET', `/v2/projects/${pid}/links`)).body;
    assert.deepEqual(afterLinks.map((l: any) => [l.link_id, l.nodes.map((e: any) => e.node_id)]), beforeLinks.map((l: any) => [l.link_id, l.nodes.map((e: any) => e.node_id)]));
    assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/drawings`)).body.map((x: any) => x.svg), ['<svg></svg>']);
    const script = await (await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/startup.vpc`)).text();
    assert.equal(script, 'set pcname PC1\nip 10.9.9.1/24\n', 'the node files are the snapshot\'s');
    assert.deepEqual(topologyFile().topology.nodes.map((n: any) => n.name).sort(), ['HUB1', 'PC1', 'SW1']);
    const restart = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.equal(restart.body.status, 'started', 'a restored VPCS starts');
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {});
  });

  it('a snapshot that cannot be read leaves the project as it was (409)', async () => {
    const snap = (await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'broken' })).body;
    const file = readdirSync(join(project.path, 'snapshots')).find((f) => f.startsWith('broken_'))!;
    writeFileSync(join(project.path, 'snapshots', file), 'not a zip');
    const nodesBefore = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body.map((n: any) => n.node_id).sort();
    const r = await d.api('POST', `/v2/projects/${pid}/snapshots/${snap.snapshot_id}/restore`, {});
    assert.equal(r.status, 409, r.text);
    assert.equal((await d.api('GET', `/v2/projects/${pid}`)).body.status, 'opened');
    assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/nodes`)).body.map((n: any) => n.node_id).sort(), nodesBefore);
    assert.ok(existsSync(join(project.path, project.filename)));
    assert.ok(!readdirSync(project.path).some((f) => f.startsWith('.restore-')), 'no staging directory left');
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/snapshots/${snap.snapshot_id}`)).status, 204);
  });

  it('GUI connect routes: symbols (SVGs of our own), default symbols, appliances, GNS3 VM (off) and IOU licence, kept across a restart', async () => {
    const symbols = (await d.api('GET', '/v2/symbols')).body;
    const ids = symbols.map((s: any) => s.symbol_id);
    for (const name of ['computer', 'vpcs_guest', 'ethernet_switch', 'hub', 'router', 'cloud']) assert.ok(ids.includes(`:/symbols/classic/${name}.svg`), name);
    const raw = await fetch(`${d.url}/v2/symbols/:/symbols/classic/ethernet_switch.svg/raw`);
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(await raw.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
    const short = await fetch(`${d.url}/v2/symbols/${encodeURIComponent(':/symbols/vpcs_guest.svg')}/raw`);
    assert.equal(short.status, 200, "GNS3's short ids find the classic symbol");
    const unknown = await fetch(`${d.url}/v2/symbols/${encodeURIComponent(':/symbols/nothing.svg')}/raw`);
    assert.equal(unknown.status, 200, 'an unknown symbol answers with the computer, as GNS3 does');
    assert.equal(await unknown.text(), await (await fetch(`${d.url}/v2/symbols/${encodeURIComponent(':/symbols/classic/computer.svg')}/raw`)).text());
    const dims = await d.api('GET', `/v2/symbols/${encodeURIComponent(':/symbols/classic/hub.svg')}/dimensions`);
    assert.deepEqual(Object.keys(dims.body), ['width', 'height']);
    assert.equal((await d.api('GET', '/v2/default_symbols')).body.Classic.vpcs_guest, ':/symbols/classic/vpcs_guest.svg');
    assert.deepEqual((await d.api('GET', '/v2/appliances')).body, []);

    assert.equal((await d.api('GET', '/v2/gns3vm')).body.enable, false);
    const set = await d.api('PUT', '/v2/gns3vm', { vmname: 'GNS3 VM', ram: 4096 });
    assert.equal(set.status, 201);
    assert.equal(set.body.ram, 4096);
    assert.equal((await d.api('PUT', '/v2/gns3vm', { enable: true })).status, 409);
    assert.equal((await d.api('PUT', '/v2/gns3vm', { engine: 'qemu' })).status, 400);
    assert.deepEqual((await d.api('GET', '/v2/gns3vm/engines')).body.map((e: any) => e.engine_id), ['vmware', 'virtualbox', 'remote']);
    assert.deepEqual((await d.api('GET', '/v2/gns3vm/engines/virtualbox/vms')).body, []);
    assert.equal((await d.api('GET', '/v2/gns3vm/engines/hyperv/vms')).status, 404);
    assert.deepEqual((await d.api('GET', '/v2/iou_license')).body, { iourc_content: '', license_check: true });
    assert.equal((await d.api('PUT', '/v2/iou_license', { iourc_content: '[license]\nhost = 1;\n', license_check: false })).status, 201);
    assert.equal((await d.api('PUT', '/v2/iou_license', { colour: 1 })).status, 400);

    await d.stop();
    d = await startTestDaemon({ home: d.home, env: ENV });
    assert.equal((await d.api('GET', '/v2/gns3vm')).body.vmname, 'GNS3 VM');
    assert.equal((await d.api('GET', '/v2/iou_license')).body.license_check, false);
  });
});
