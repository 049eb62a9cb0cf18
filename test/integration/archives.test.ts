import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import yauzl from 'yauzl';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { rawZip } from '../helpers/raw-zip.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20400-20449', EMUCTL_CONSOLE_PORT_RANGE: '27540-27559' };

/** The entries of a ZIP (read with yauzl): name → {data, stored}. */
async function unzip(buffer: Buffer): Promise<Map<string, { data: Buffer; stored: boolean }>> {
  const zip = await yauzl.fromBufferPromise(buffer);
  const out = new Map<string, { data: Buffer; stored: boolean }>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    out.set(entry.fileName, { data: Buffer.concat(chunks), stored: entry.compressionMethod === 0 });
  }
  return out;
}

describe('portable project archives (.gns3project): export, import, duplicate', () => {
  let d: TestDaemon;
  let pid: string;
  let pc: any;
  let sw: any;
  let exported: Buffer;

  const exportOf = async (projectId: string, query = '') => {
    const r = await fetch(`${d.url}/v2/projects/${projectId}/export${query}`);
    return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
  };
  const importArchive = async (projectId: string, archive: Buffer, query = '') => {
    const r = await fetch(`${d.url}/v2/projects/${projectId}/import${query}`, { method: 'POST', body: new Uint8Array(archive) });
    const text = await r.text();
    return { status: r.status, headers: r.headers, text, body: text ? JSON.parse(text) : undefined };
  };

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    pid = await createProject(d, 'origin');
    sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    pc = await createNode(d, pid, 'PC1', 'vpcs');
    const link = await createLink(d, pid, [pc.node_id, 0], [sw.node_id, 2]);
    await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { filters: { delay: [10] } });
    await d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg><text>lab</text></svg>', x: 5 });
    await fetch(`${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/startup.vpc`, { method: 'POST', body: 'set pcname PC1\nip 10.5.5.1/24\n' });
    const capture = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, { capture_file_name: 'wire.pcap' });
    assert.equal(capture.status, 201, capture.text);
    await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/stop_capture`, {});
    assert.equal((await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'base' })).status, 201);
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it("exports GNS3 2.2's layout: project.gns3 at the root, the project's files, no captures, logs or snapshots", async () => {
    const r = await exportOf(pid);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/gns3project');
    assert.equal(r.headers.get('content-disposition'), 'attachment; filename="origin.gns3project"');
    assert.equal(r.headers.get('x-route'), '/v2/projects/{project_id}/export');
    exported = r.body;
    const entries = await unzip(exported);
    assert.deepEqual([...entries.keys()].sort(), ['project-files/vpcs/' + pc.node_id + '/startup.vpc', 'project.gns3']);
    assert.equal(entries.get('project.gns3')!.stored, false, 'deflated by default');
    assert.equal(entries.get(`project-files/vpcs/${pc.node_id}/startup.vpc`)!.data.toString(), 'set pcname PC1\nip 10.5.5.1/24\n');
    const topology = JSON.parse(entries.get('project.gns3')!.data.toString());
    assert.deepEqual([topology.type, topology.name, topology.project_id], ['topology', 'origin', pid]);
    assert.deepEqual(topology.topology.computes, []);
    assert.deepEqual(topology.topology.nodes.map((n: any) => [n.name, n.compute_id]).sort(), [['PC1', 'local'], ['SW1', 'local']]);
    assert.deepEqual(topology.topology.links[0].filters, { delay: [10] });
    assert.equal(topology.topology.drawings.length, 1);
  });

  it("export options: snapshots included on request, stored entries; no VPCS MAC (GNS3's VPCS takes none); a running VPCS is a 409", async () => {
    const withSnapshots = await unzip((await exportOf(pid, '?include_snapshots=yes&compression=none')).body);
    assert.ok([...withSnapshots.keys()].some((name) => /^snapshots\/base_\d{6}_\d{6}\.gns3project$/.test(name)));
    assert.ok([...withSnapshots.values()].every((e) => e.stored), 'compression=none stores');
    const reset = await unzip((await exportOf(pid, '?reset_mac_addresses=yes&compression=bzip2')).body);
    const vpcs = JSON.parse(reset.get('project.gns3')!.data.toString()).topology.nodes.find((n: any) => n.node_type === 'vpcs');
    assert.ok(!('mac_address' in vpcs.properties), 'a portable archive carries no emuctl-only VPCS property');
    assert.equal((await exportOf(pid, '?compression=rar')).status, 400);
    assert.equal((await exportOf(randomUUID())).status, 404);
    await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    try {
      const busy = await exportOf(pid);
      assert.equal(busy.status, 409);
      assert.match(busy.body.toString(), /must be stopped/);
    } finally {
      await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {});
    }
  });

  it('imports an export as a new closed project: new ids, node files moved with them, links and drawings kept', async () => {
    const newId = randomUUID();
    const r = await importArchive(newId, exported);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('x-route'), '/v2/projects/{project_id}/import');
    assert.deepEqual([r.body.project_id, r.body.name, r.body.status, r.body.auto_open, r.body.auto_start], [newId, 'origin-1', 'closed', false, false]);
    assert.ok(!existsSync(join(r.body.path, 'project.gns3')));
    assert.equal((await d.api('POST', `/v2/projects/${newId}/open`)).status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${newId}/nodes`)).body;
    assert.deepEqual(nodes.map((n: any) => n.name).sort(), ['PC1', 'SW1']);
    assert.ok(nodes.every((n: any) => n.node_id !== pc.node_id && n.node_id !== sw.node_id), 'nodes get new ids');
    const copy = nodes.find((n: any) => n.name === 'PC1');
    assert.equal(await (await fetch(`${d.url}/v2/projects/${newId}/nodes/${copy.node_id}/files/startup.vpc`)).text(), 'set pcname PC1\nip 10.5.5.1/24\n');
    const links = (await d.api('GET', `/v2/projects/${newId}/links`)).body;
    assert.equal(links.length, 1);
    assert.deepEqual(links[0].nodes.map((e: any) => e.node_id).sort(), nodes.map((n: any) => n.node_id).sort());
    assert.deepEqual(links[0].filters, { delay: [10] });
    assert.equal((await d.api('GET', `/v2/projects/${newId}/drawings`)).body.length, 1);

    const named = await importArchive(randomUUID(), exported, '?name=renamed');
    assert.equal(named.body.name, 'renamed');
    assert.equal((await importArchive(newId, exported)).status, 409, 'the project id is taken');
  });

  it('refuses archives whose entries escape the project (zip-slip: 400), and leaves nothing behind', async () => {
    const topology = Buffer.from(JSON.stringify({ type: 'topology', name: 'evil', project_id: randomUUID(), topology: { nodes: [], links: [], drawings: [], computes: [] } }));
    const cases = [
      [{ name: 'project.gns3', data: topology }, { name: '../../escaped.txt', data: 'x' }],
      [{ name: 'project.gns3', data: topology }, { name: 'project-files/../../../escaped.txt', data: 'x' }],
      [{ name: '/tmp/escaped-absolute.txt', data: 'x' }, { name: 'project.gns3', data: topology }],
      [{ name: 'project.gns3', data: topology }, { name: 'link', data: '/etc', mode: 0o120777 }, { name: 'link/passwd', data: 'x' }],
    ];
    const projectsDir = join(d.home, 'projects');
    const before = readdirSync(projectsDir).sort();
    for (const entries of cases) {
      const id = randomUUID();
      const r = await importArchive(id, rawZip(entries));
      assert.equal(r.status, 400, `${entries.map((e) => e.name).join(', ')}: ${r.text}`);
      assert.equal((await d.api('GET', `/v2/projects/${id}`)).status, 404);
    }
    assert.deepEqual(readdirSync(projectsDir).sort(), before, 'no directory left in the projects directory');
    assert.ok(!existsSync(join(dirname(projectsDir), 'escaped.txt')) && !existsSync(join(d.home, 'escaped.txt')) && !existsSync('/tmp/escaped-absolute.txt'));
  });

  it('refuses what is not a GNS3 project (409, as GNS3 does): not a zip, no project.gns3, a corrupted one', async () => {
    assert.equal((await importArchive(randomUUID(), Buffer.from('not a zip at all'))).status, 409);
    assert.equal((await importArchive(randomUUID(), rawZip([{ name: 'readme.txt', data: 'hi' }]))).status, 409);
    assert.equal((await importArchive(randomUUID(), rawZip([{ name: 'project.gns3', data: '{"name": ' }]))).status, 409);
    assert.equal((await importArchive('not-a-uuid', exported)).status, 400);
  });

  it('imports a project laid out as GNS3 2.2 exports it (archive not written by emuctl)', async () => {
    const pcId = randomUUID();
    const swId = randomUUID();
    const label = (text: string) => ({ rotation: 0, style: 'font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;', text, x: 10, y: -25 });
    const node = (id: string, name: string, type: string, extra: Record<string, unknown>) => ({
      compute_id: 'local', console_auto_start: false, custom_adapters: [], first_port_name: null, height: 59, label: label(name), locked: false,
      name, node_id: id, node_type: type, port_name_format: 'Ethernet{0}', port_segment_size: 0, width: 65, x: 0, y: 0, z: 1, ...extra,
    });
    const topology = {
      auto_close: true, auto_open: false, auto_start: false, drawing_grid_size: 25, grid_size: 75, name: 'from-gns3', project_id: randomUUID(),
      revision: 9, scene_height: 1000, scene_width: 2000, show_grid: false, show_interface_labels: false, show_layers: false, snap_to_grid: false,
      supplier: null, variables: null, zoom: 100, type: 'topology', version: '2.2.42',
      topology: {
        computes: [],
        drawings: [{ drawing_id: randomUUID(), locked: false, rotation: 0, svg: '<svg height="50" width="100"><rect/></svg>', x: -50, y: -50, z: 1 }],
        links: [{ filters: {}, link_id: randomUUID(), link_style: {}, suspend: false, nodes: [
          { adapter_number: 0, label: label('e0'), node_id: pcId, port_number: 0 },
          { adapter_number: 0, label: label('e1'), node_id: swId, port_number: 1 },
        ] }],
        nodes: [
          node(pcId, 'PC-A', 'vpcs', { console: 27558, console_type: 'telnet', properties: {}, symbol: ':/symbols/vpcs_guest.svg', template_id: '19021f99-e36f-394d-b4a1-8aaa902ab9cc' }),
          node(swId, 'Switch1', 'ethernet_switch', {
            console: null, console_type: 'none', symbol: ':/symbols/ethernet_switch.svg', template_id: '1966b864-93e7-32d5-965f-001384eec461',
            properties: { ports_mapping: [0, 1, 2, 3].map((i) => ({ ethertype: '', name: `Ethernet${i}`, port_number: i, type: 'access', vlan: 1 })) },
          }),
        ],
      },
    };
    const archive = rawZip([
      { name: 'project.gns3', data: JSON.stringify(topology) },
      { name: `project-files/vpcs/${pcId}/startup.vpc`, data: 'set pcname PC-A\nip 10.20.30.1 255.255.255.0\n' },
    ]);
    const id = randomUUID();
    const r = await importArchive(id, archive);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.name, 'from-gns3');
    assert.equal((await d.api('POST', `/v2/projects/${id}/open`)).status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${id}/nodes`)).body;
    assert.deepEqual(nodes.map((n: any) => n.name).sort(), ['PC-A', 'Switch1']);
    const pcA = nodes.find((n: any) => n.name === 'PC-A');
    assert.match(pcA.properties.mac_address, /^00:50:79:66:68:[0-9a-f]{2}$/, 'a VPCS without a MAC gets one');
    assert.equal(nodes.find((n: any) => n.name === 'Switch1').ports.length, 4);
    assert.equal(await (await fetch(`${d.url}/v2/projects/${id}/nodes/${pcA.node_id}/files/startup.vpc`)).text(), 'set pcname PC-A\nip 10.20.30.1 255.255.255.0\n');
    assert.equal((await d.api('GET', `/v2/projects/${id}/links`)).body.length, 1);
    assert.equal((await d.api('GET', `/v2/projects/${id}/drawings`)).body[0].x, -50);
  });

  it('duplicates a project (GNS3: an export imported again): a copy with new ids, the original untouched', async () => {
    const r = await d.api('POST', `/v2/projects/${pid}/duplicate`, { name: 'origin copy' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('x-route'), '/v2/projects/{project_id}/duplicate');
    assert.notEqual(r.body.project_id, pid);
    assert.equal(r.body.name, 'origin copy');
    await d.api('POST', `/v2/projects/${r.body.project_id}/open`);
    const nodes = (await d.api('GET', `/v2/projects/${r.body.project_id}/nodes`)).body;
    assert.deepEqual(nodes.map((n: any) => n.name).sort(), ['PC1', 'SW1']);
    assert.equal((await d.api('GET', `/v2/projects/${pid}/nodes`)).body.length, 2, 'the original keeps its nodes');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/duplicate`, { name: 'origin copy' })).body.name, 'origin copy-1', 'a taken name gets a number');
    assert.equal((await d.api('POST', `/v2/projects/${randomUUID()}/duplicate`, {})).status, 404);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/duplicate`, { colour: 1 })).status, 400);
    const snapshotted = await importArchive(randomUUID(), (await exportOf(pid, '?include_snapshots=yes')).body);
    assert.equal((await d.api('GET', `/v2/projects/${snapshotted.body.project_id}/snapshots`)).body.length, 1, 'snapshots travel when included');
    assert.ok(readFileSync(join(snapshotted.body.path, `${snapshotted.body.name}.gns3`), 'utf8').includes(snapshotted.body.project_id));
  });
});
