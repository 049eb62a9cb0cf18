// Every change on a really full disk (a tmpfs of its own, filled to the last byte): the answer is
// a 507 naming the problem, nothing half-made is left (no temp or partial file, no new directory),
// GET and a restarted daemon show the state from before, and once there is room the same call works.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, lstatSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startTestDaemon, type ApiAnswer, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { mountSmallDisk, SMALL_DISK_FILLER, type SmallDisk } from '../helpers/small-disk.js';

// Import limits set: without them the free-space defaults refuse an import on a full disk (413) before it writes anything, and the writes are what is tested here.
const ENV = { EMUCTL_UDP_PORT_RANGE: '23400-23499', EMUCTL_MAX_IMPORT_BYTES: String(1 << 30), EMUCTL_MAX_IMPORT_EXPANDED_BYTES: String(1 << 30) };

/** Every path under `root` with its size (directories as `/`), the filler and the daemon's own run files left out. */
function tree(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (rel === SMALL_DISK_FILLER) continue;
      const info = lstatSync(path);
      if (info.isDirectory()) {
        out.push(`${rel}/`);
        visit(path);
      } else out.push(`${rel} ${info.size}`);
    }
  };
  visit(root);
  return out.sort();
}

describe('a full disk: every change answers 507, leaves nothing behind and is not applied', () => {
  let disk: SmallDisk;
  let d: TestDaemon;
  let pid: string;
  let ids: Record<string, string>;
  let archive: Buffer;

  const start = async () => {
    d = await startTestDaemon({ home: disk.path, env: { ...ENV, TMPDIR: join(disk.path, 'tmp') } });
  };
  const get = async (path: string) => {
    const r = await d.api('GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };
  /** What a client sees of everything a change could touch. */
  const state = async () => {
    const projects = (await get('/v2/projects')).map((p: any) => ({ ...p, status: undefined })).sort((a: any, b: any) => a.name.localeCompare(b.name));
    // A restart keeps each node's console port in its properties; the local compute gets the new daemon's port.
    const nodes = (await get(`/v2/projects/${pid}/nodes`)).map((n: any) => ({ ...n, status: undefined, command_line: undefined, properties: { ...n.properties, console: undefined } }));
    const computes = (await get('/v2/computes')).filter((c: any) => c.compute_id !== 'local').map((c: any) => ({ compute_id: c.compute_id, name: c.name, host: c.host, port: c.port }));
    return {
      projects,
      nodes,
      links: await get(`/v2/projects/${pid}/links`),
      drawings: await get(`/v2/projects/${pid}/drawings`),
      snapshots: await get(`/v2/projects/${pid}/snapshots`),
      templates: await get('/v2/templates'),
      computes,
      images: await get('/v2/compute/qemu/images'),
      gns3vm: await get('/v2/gns3vm'),
      iou: await get('/v2/iou_license'),
      files: await get(`/v2/compute/projects/${pid}/files`),
    };
  };
  /** A call with a raw body (uploads), answered like d.api. */
  const upload = async (path: string, body: Buffer): Promise<ApiAnswer> => {
    const res = await fetch(d.url + path, { method: 'POST', body: new Uint8Array(body), headers: { 'Content-Type': 'application/octet-stream' } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
  };
  const link = (a: string, pa: number, b: string, pb: number) => ({ nodes: [{ node_id: a, adapter_number: 0, port_number: pa }, { node_id: b, adapter_number: 0, port_number: pb }] });

  /** The changes tried on the full disk, each with the status it gets once there is room. */
  const changes = (): { name: string; ok: number[]; call: () => Promise<ApiAnswer> }[] => [
    { name: 'project create', ok: [201], call: () => d.api('POST', '/v2/projects', { name: 'second' }) },
    { name: 'project rename', ok: [200], call: () => d.api('PUT', `/v2/projects/${pid}`, { name: 'renamed' }) },
    { name: 'project duplicate', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/duplicate`, { name: 'copy' }) },
    { name: 'VPCS create', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'PC2', node_type: 'vpcs' }) },
    { name: 'switch create', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW3', node_type: 'ethernet_switch' }) },
    { name: 'VPCS rename', ok: [200], call: () => d.api('PUT', `/v2/projects/${pid}/nodes/${ids.pc1}`, { name: 'PCX' }) },
    { name: 'switch rename and move', ok: [200], call: () => d.api('PUT', `/v2/projects/${pid}/nodes/${ids.sw1}`, { name: 'core', x: 50 }) },
    { name: 'VPCS duplicate', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/nodes/${ids.pc1}/duplicate`, { x: 10, y: 10 }) },
    { name: 'link create', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/links`, link(ids.sw1, 1, ids.sw2, 1)) },
    { name: 'link filters', ok: [201], call: () => d.api('PUT', `/v2/projects/${pid}/links/${ids.link}`, { filters: { frequency_drop: [5] } }) },
    { name: 'drawing create', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg></svg>', x: 1, y: 1 }) },
    { name: 'drawing update', ok: [201], call: () => d.api('PUT', `/v2/projects/${pid}/drawings/${ids.drawing}`, { x: 99 }) },
    { name: 'template create', ok: [201], call: () => d.api('POST', '/v2/templates', { name: 'T2', template_type: 'vpcs', compute_id: 'local' }) },
    { name: 'template update', ok: [200], call: () => d.api('PUT', `/v2/templates/${ids.template}`, { name: 'T1b' }) },
    { name: 'template duplicate', ok: [201], call: () => d.api('POST', `/v2/templates/${ids.template}/duplicate`, {}) },
    { name: 'node from template', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/templates/${ids.template}`, { x: 5, y: 5 }) },
    { name: 'snapshot create', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 's1' }) },
    { name: 'snapshot restore', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/snapshots/${ids.snapshot}/restore`, {}) },
    { name: 'import', ok: [201], call: () => upload(`/v2/projects/${crypto.randomUUID()}/import?name=imported`, archive) },
    { name: 'export (it saves the topology first)', ok: [200], call: () => d.api('GET', `/v2/projects/${pid}/export`) },
    { name: 'project file upload', ok: [201], call: () => upload(`/v2/projects/${pid}/files/notes/readme.txt`, Buffer.alloc(3 << 20, 'n')) },
    { name: 'node file upload', ok: [201], call: () => upload(`/v2/projects/${pid}/nodes/${ids.pc1}/files/extra.txt`, Buffer.alloc(20_000, 'e')) },
    { name: 'image upload', ok: [204], call: () => upload('/v2/compute/qemu/images/disk.img', Buffer.alloc(3 << 20, 7)) },
    { name: 'disk image create', ok: [201], call: () => d.api('POST', '/v2/compute/qemu/img', { qemu_img: 'qemu-img', path: 'blank.qcow2', format: 'qcow2', size: 64, preallocation: 'metadata' }) },
    { name: 'compute add', ok: [201], call: () => d.api('POST', '/v2/computes', { compute_id: 'far2', host: '127.0.0.1', port: 9, protocol: 'http' }) },
    { name: 'compute update', ok: [200], call: () => d.api('PUT', `/v2/computes/far`, { name: 'far renamed' }) },
    { name: 'GNS3 VM settings', ok: [201], call: () => d.api('PUT', '/v2/gns3vm', { vmname: 'vm1' }) },
    { name: 'IOU licence', ok: [201], call: () => d.api('PUT', '/v2/iou_license', { iourc_content: '[license]\n' }) },
    { name: 'link capture start', ok: [201], call: () => d.api('POST', `/v2/projects/${pid}/links/${ids.link}/start_capture`, {}) },
    { name: 'template delete', ok: [204], call: () => d.api('DELETE', `/v2/templates/${ids.template}`) },
    { name: 'compute delete', ok: [204], call: () => d.api('DELETE', `/v2/computes/far`) },
    { name: 'drawing delete', ok: [204], call: () => d.api('DELETE', `/v2/projects/${pid}/drawings/${ids.drawing}`) },
    { name: 'link delete', ok: [204], call: () => d.api('DELETE', `/v2/projects/${pid}/links/${ids.link}`) },
    { name: 'node delete', ok: [204], call: () => d.api('DELETE', `/v2/projects/${pid}/nodes/${ids.sw2}`) },
    // Last: once there is room these start a VPCS and close the project.
    { name: 'VPCS start', ok: [200], call: () => d.api('POST', `/v2/projects/${pid}/nodes/${ids.pc1}/start`, {}) },
    { name: 'project close', ok: [204], call: () => d.api('POST', `/v2/projects/${pid}/close`, {}) },
  ];

  before(async () => {
    disk = mountSmallDisk(24 << 20);
    mkdirSync(join(disk.path, 'tmp'));
    await start();
    pid = await createProject(d, 'lab');
    const sw1 = await createNode(d, pid, 'SW1', 'ethernet_switch');
    const sw2 = await createNode(d, pid, 'SW2', 'ethernet_switch');
    const pc1 = await createNode(d, pid, 'PC1', 'vpcs');
    const l = await createLink(d, pid, [sw1.node_id, 0], [sw2.node_id, 0]);
    const drawing = await d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg></svg>' });
    const snapshot = await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 's0' });
    const template = await d.api('POST', '/v2/templates', { name: 'T1', template_type: 'vpcs', compute_id: 'local' });
    const compute = await d.api('POST', '/v2/computes', { compute_id: 'far', host: '127.0.0.1', port: 9, protocol: 'http' });
    const image = await fetch(`${d.url}/v2/compute/qemu/images/base.img`, { method: 'POST', body: new Uint8Array(4096) });
    assert.equal(image.status, 204);
    const exported = await fetch(`${d.url}/v2/projects/${pid}/export`);
    assert.equal(exported.status, 200);
    archive = Buffer.from(await exported.arrayBuffer());
    for (const r of [drawing, snapshot, template, compute]) assert.equal(r.status, 201, r.text);
    ids = { sw1: sw1.node_id, sw2: sw2.node_id, pc1: pc1.node_id, link: l.link_id, drawing: drawing.body.drawing_id, snapshot: snapshot.body.snapshot_id, template: template.body.template_id };
  });
  after(async () => {
    await d?.stop();
    disk?.remove();
  });

  it('each change answers 507 naming the disk problem; GET and the files on disk are as before', async () => {
    const expected = await state();
    disk.fill();
    const files = tree(disk.path);
    const failures: string[] = [];
    for (const change of changes()) {
      const r = await change.call();
      if (r.status !== 507 || r.body?.status !== 507 || !/no space left on the device \(ENOSPC\)/.test(r.body?.message)) {
        failures.push(`${change.name}: ${r.status} ${r.text.slice(0, 200)}`);
        continue;
      }
      const now = tree(disk.path);
      if (JSON.stringify(now) !== JSON.stringify(files)) {
        failures.push(`${change.name} left files behind: +${now.filter((f) => !files.includes(f)).join(', ')} -${files.filter((f) => !now.includes(f)).join(', ')}`);
      }
      try {
        assert.deepEqual(await state(), expected);
      } catch (err) {
        failures.push(`${change.name} changed the state: ${(err as Error).message.slice(0, 1500)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.doesNotMatch(d.log(), /Internal server error|TypeError/);
  });

  it('a daemon restarted once there is room shows the state from before the failed changes, and then every change works', async () => {
    const expected = await state();
    await d.stop();
    disk.free();
    await start();
    assert.equal((await d.api('POST', `/v2/projects/${pid}/open`)).status, 201);
    assert.deepEqual(await state(), expected);
    for (const change of changes()) {
      const r = await change.call();
      assert.ok(change.ok.includes(r.status), `${change.name} with room on the disk: ${r.status} ${r.text.slice(0, 300)}`);
    }
  });
});
