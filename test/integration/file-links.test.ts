import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const SECRET = 'outside the project: never read, never written\n';

/** Every directory and file below `dir` (links not followed), with its permission bits. */
function modesBelow(dir: string): { path: string; mode: number; isDir: boolean }[] {
  const out: { path: string; mode: number; isDir: boolean }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink() || entry.isSocket()) continue;
    out.push({ path, mode: lstatSync(path).mode & 0o777, isDir: entry.isDirectory() });
    if (entry.isDirectory()) out.push(...modesBelow(path));
  }
  return out;
}

describe('files: no symbolic link followed out of a project, private modes', () => {
  let d: TestDaemon;
  let outside: string;
  let secret: string;
  let pid: string;
  let projectDir: string;
  let sw1: any;
  let sw2: any;
  let link: any;

  before(async () => {
    outside = mkdtempSync(join(tmpdir(), 'emuctl-outside-'));
    secret = join(outside, 'secret.txt');
    writeFileSync(secret, SECRET);
    // The daemon inherits a umask that leaves files world-readable: it must set its modes itself.
    const umask = process.umask(0o022);
    d = await startTestDaemon({ env: { EMUCTL_CONSOLE_PORT_RANGE: '29220-29229', EMUCTL_UDP_PORT_RANGE: '32620-32639' } });
    process.umask(umask);
    pid = await createProject(d, 'links');
    projectDir = (await d.api('GET', `/v2/projects/${pid}`)).body.path;
    sw1 = await createNode(d, pid, 'SW1', 'ethernet_switch');
    sw2 = await createNode(d, pid, 'SW2', 'ethernet_switch');
    link = await createLink(d, pid, [sw1.node_id, 0], [sw2.node_id, 0]);
  });
  after(async () => {
    await d?.stop();
    rmSync(d.home, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const assertSecretUntouched = () => {
    assert.equal(readFileSync(secret, 'utf8'), SECRET);
    assert.deepEqual(readdirSync(outside).sort(), ['secret.txt']);
  };

  it('project file routes refuse a directory link planted inside the project (403), for reads and writes', async () => {
    symlinkSync(outside, join(projectDir, 'project-files', 'evil'));
    try {
      const get = await d.api('GET', `/v2/projects/${pid}/files/project-files/evil/secret.txt`);
      assert.equal(get.status, 403, get.text);
      assert.match(get.body.message, /evil' is a symbolic link/);
      assert.ok(!get.text.includes(SECRET.trim()));
      const post = await fetch(`${d.url}/v2/projects/${pid}/files/project-files/evil/secret.txt`, { method: 'POST', body: 'overwritten' });
      assert.equal(post.status, 403);
      const create = await fetch(`${d.url}/v2/projects/${pid}/files/project-files/evil/new.txt`, { method: 'POST', body: 'planted' });
      assert.equal(create.status, 403);
      assertSecretUntouched();
    } finally {
      unlinkSync(join(projectDir, 'project-files', 'evil'));
    }
  });

  it('a link as the file itself is refused for reads; a write replaces the link, never the target', async () => {
    symlinkSync(secret, join(projectDir, 'notes.txt'));
    const get = await d.api('GET', `/v2/projects/${pid}/files/notes.txt`);
    assert.equal(get.status, 403, get.text);
    const post = await fetch(`${d.url}/v2/projects/${pid}/files/notes.txt`, { method: 'POST', body: 'mine' });
    assert.equal(post.status, 201);
    assert.ok(!lstatSync(join(projectDir, 'notes.txt')).isSymbolicLink());
    assert.equal(readFileSync(join(projectDir, 'notes.txt'), 'utf8'), 'mine');
    assertSecretUntouched();
  });

  it('compute file routes refuse the same links, and the file listing skips them', async () => {
    symlinkSync(outside, join(projectDir, 'project-files', 'evil'));
    try {
      const get = await d.api('GET', `/v2/compute/projects/${pid}/files/project-files/evil/secret.txt`);
      assert.equal(get.status, 403, get.text);
      const post = await fetch(`${d.url}/v2/compute/projects/${pid}/files/project-files/evil/secret.txt`, { method: 'POST', body: 'overwritten' });
      assert.equal(post.status, 403);
      const list = await d.api('GET', `/v2/compute/projects/${pid}/files`);
      assert.equal(list.status, 200);
      assert.ok(!list.body.some((f: { path: string }) => f.path.includes('evil')), list.text);
      assertSecretUntouched();
    } finally {
      unlinkSync(join(projectDir, 'project-files', 'evil'));
    }
  });

  it('node file routes refuse a node-type directory that is a link', async () => {
    const typeDir = join(projectDir, 'project-files', 'ethernet_switch');
    const moved = `${typeDir}-moved`;
    if (existsSync(typeDir)) renameSync(typeDir, moved);
    mkdirSync(join(outside, sw1.node_id));
    writeFileSync(join(outside, sw1.node_id, 'config.txt'), SECRET);
    symlinkSync(outside, typeDir);
    try {
      const get = await d.api('GET', `/v2/projects/${pid}/nodes/${sw1.node_id}/files/config.txt`);
      assert.equal(get.status, 403, get.text);
      const post = await fetch(`${d.url}/v2/projects/${pid}/nodes/${sw1.node_id}/files/config.txt`, { method: 'POST', body: 'overwritten' });
      assert.equal(post.status, 403);
      assert.equal(readFileSync(join(outside, sw1.node_id, 'config.txt'), 'utf8'), SECRET);
    } finally {
      unlinkSync(typeDir);
      if (existsSync(moved)) renameSync(moved, typeDir);
      rmSync(join(outside, sw1.node_id), { recursive: true });
    }
    assertSecretUntouched();
  });

  it('deleting a node whose node-type directory is a link removes nothing outside', async () => {
    const hub = await createNode(d, pid, 'HUB9', 'ethernet_hub');
    const typeDir = join(projectDir, 'project-files', 'ethernet_hub');
    if (existsSync(typeDir)) rmSync(typeDir, { recursive: true });
    mkdirSync(join(outside, hub.node_id));
    writeFileSync(join(outside, hub.node_id, 'keep.txt'), SECRET);
    symlinkSync(outside, typeDir);
    try {
      assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${hub.node_id}`)).status, 204);
      assert.equal(readFileSync(join(outside, hub.node_id, 'keep.txt'), 'utf8'), SECRET);
    } finally {
      unlinkSync(typeDir);
      rmSync(join(outside, hub.node_id), { recursive: true, force: true });
    }
  });

  it('a capture file name that exists as a link is refused and its target keeps its content', async () => {
    const captures = join(projectDir, 'project-files', 'captures');
    symlinkSync(secret, join(captures, 'evil.pcap'));
    try {
      const r = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, { capture_file_name: 'evil.pcap' });
      assert.equal(r.status, 403, r.text);
      assert.match(r.body.message, /evil\.pcap' is a symbolic link/);
      assertSecretUntouched();
    } finally {
      unlinkSync(join(captures, 'evil.pcap'));
    }
  });

  it('a captures directory that is a link is refused', async () => {
    const captures = join(projectDir, 'project-files', 'captures');
    renameSync(captures, `${captures}-moved`);
    symlinkSync(outside, captures);
    try {
      const r = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, { capture_file_name: 'secret.txt' });
      assert.equal(r.status, 403, r.text);
      assertSecretUntouched();
    } finally {
      unlinkSync(captures);
      renameSync(`${captures}-moved`, captures);
    }
  });

  it('the pcap download of a capture swapped for a link is refused', async () => {
    const r = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, { capture_file_name: 'swapped.pcap' });
    assert.equal(r.status, 201, r.text);
    const path = join(projectDir, 'project-files', 'captures', 'swapped.pcap');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    unlinkSync(path);
    symlinkSync(secret, path);
    try {
      const pcap = await fetch(`${d.url}/v2/projects/${pid}/links/${link.link_id}/pcap`);
      assert.equal(pcap.status, 403);
      assert.ok(!(await pcap.text()).includes(SECRET.trim()));
    } finally {
      await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/stop_capture`);
    }
    assertSecretUntouched();
  });

  it('a project path through a link or inside another project is refused', async () => {
    const via = join(d.home, 'projects', 'via-link');
    symlinkSync(outside, via);
    const r = await d.api('POST', '/v2/projects', { name: 'through-link', path: join(via, 'p') });
    assert.equal(r.status, 403, r.text);
    assert.deepEqual(readdirSync(outside).sort(), ['secret.txt']);
    unlinkSync(via);
    const nested = await d.api('POST', '/v2/projects', { name: 'nested', path: join(projectDir, 'inner') });
    assert.equal(nested.status, 409, nested.text);
  });

  it('an import into a project path through a link is refused and writes nothing there', async () => {
    const archive = Buffer.from(await (await fetch(`${d.url}/v2/projects/${pid}/export`)).arrayBuffer());
    const via = join(d.home, 'projects', 'import-link');
    symlinkSync(outside, via);
    try {
      const r = await fetch(`${d.url}/v2/projects/${randomUUID()}/import?name=imported&path=${encodeURIComponent(join(via, 'p'))}`, { method: 'POST', body: archive });
      assert.equal(r.status, 403, await r.text());
      assertSecretUntouched();
    } finally {
      unlinkSync(via);
    }
    const ok = await fetch(`${d.url}/v2/projects/${randomUUID()}/import?name=imported`, { method: 'POST', body: archive });
    assert.equal(ok.status, 201, await ok.text());
  });

  it('snapshots are not written, listed or restored through a snapshots directory that is a link', async () => {
    const snapshots = join(projectDir, 'snapshots');
    symlinkSync(outside, snapshots);
    try {
      const create = await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'snap' });
      assert.equal(create.status, 403, create.text);
      assert.equal((await d.api('GET', `/v2/projects/${pid}/snapshots`)).status, 403);
      assertSecretUntouched();
    } finally {
      unlinkSync(snapshots);
    }
    assert.equal((await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'snap' })).status, 201);
  });

  it('images are not uploaded, read, listed or deleted through a link in the images directory', async () => {
    const images = join(d.home, 'images', 'QEMU');
    const up = await fetch(`${d.url}/v2/compute/qemu/images/base.img`, { method: 'POST', body: 'image bytes' });
    assert.equal(up.status, 204, await up.text());
    symlinkSync(outside, join(images, 'evil'));
    symlinkSync(secret, join(images, 'linked.img'));
    try {
      const upload = await fetch(`${d.url}/v2/compute/qemu/images/evil/planted.img`, { method: 'POST', body: 'planted' });
      assert.equal(upload.status, 403, await upload.text());
      assert.equal((await fetch(`${d.url}/v2/compute/qemu/images/evil/secret.txt`)).status, 403);
      const download = await fetch(`${d.url}/v2/compute/qemu/images/linked.img`);
      assert.equal(download.status, 403);
      assert.ok(!(await download.text()).includes(SECRET.trim()));
      assert.equal((await fetch(`${d.url}/v2/compute/qemu/images/evil/secret.txt`, { method: 'DELETE' })).status, 403);
      const list = await d.api('GET', '/v2/compute/qemu/images');
      assert.deepEqual(list.body.map((i: { filename: string }) => i.filename), ['base.img']);
      assertSecretUntouched();
    } finally {
      unlinkSync(join(images, 'evil'));
      unlinkSync(join(images, 'linked.img'));
    }
  });

  it('projects, captures, state and what node processes write (vpcs.log) are private: directories 0700, files 0600', { timeout: 60_000 }, async () => {
    const pc = await createNode(d, pid, 'PC1', 'vpcs');
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const vpcsLog = join(projectDir, 'project-files', 'vpcs', pc.node_id, 'vpcs.log');
    for (const end = Date.now() + 30_000; !existsSync(vpcsLog); await new Promise((r) => setTimeout(r, 100))) if (Date.now() > end) assert.fail('VPCS wrote no vpcs.log within 30 s');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/stop`, {})).status, 200);
    await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, { capture_file_name: 'modes.pcap' });
    await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/stop_capture`);
    await d.api('POST', '/v2/templates', { name: 'private-template', template_type: 'ethernet_hub', compute_id: 'local' });
    const all = modesBelow(d.home);
    for (const must of [join(d.home, 'projects'), projectDir, join(projectDir, 'links.gns3'), join(projectDir, 'project-files', 'captures', 'modes.pcap'), vpcsLog]) {
      assert.ok(all.some((e) => e.path === must), `${must} exists`);
    }
    const loose = all.filter((e) => e.mode !== (e.isDir ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`);
    assert.deepEqual(loose, []);
  });
});

describe('files: a project left by an older version (0755 / 0644) is made private on start', () => {
  it('tightens the project directory to 0700 and its .gns3 file to 0600; the projects directory keeps its mode', async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-old-'));
    const id = randomUUID();
    const dir = join(home, 'projects', id);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(join(home, 'projects'), 0o755);
    chmodSync(dir, 0o755);
    const topology = { type: 'topology', project_id: id, name: 'old', revision: 9, version: '2.2.0', topology: { nodes: [], links: [], drawings: [], computes: [] } };
    writeFileSync(join(dir, 'old.gns3'), JSON.stringify(topology), { mode: 0o644 });
    chmodSync(join(dir, 'old.gns3'), 0o644);
    const d = await startTestDaemon({ home });
    try {
      assert.equal((await d.api('GET', `/v2/projects/${id}`)).body.name, 'old');
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, 'old.gns3')).mode & 0o777, 0o600);
      assert.equal(statSync(join(home, 'projects')).mode & 0o777, 0o755);
    } finally {
      await d.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
