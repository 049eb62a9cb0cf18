import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { startTestDaemon, removeHome } from '../helpers/daemon.js';

describe('persistence and shutdown', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-persist-'));
  after(() => removeHome(home));

  it('a restarted daemon lists every project again with its settings', async () => {
    const first = await startTestDaemon({ home });
    const a = (await first.api('POST', '/v2/projects', { name: 'alpha', auto_close: false })).body;
    const b = (await first.api('POST', '/v2/projects', { name: 'beta' })).body;
    await first.api('PUT', `/v2/projects/${b.project_id}`, { name: 'beta-renamed', scene_width: 3000 });
    assert.equal(await first.stop(), 0, 'graceful exit code');

    const second = await startTestDaemon({ home });
    const listed = (await second.api('GET', '/v2/projects')).body as Array<Record<string, unknown>>;
    const byId = new Map(listed.map((p) => [p.project_id, p]));
    assert.equal(byId.get(a.project_id)?.name, 'alpha');
    assert.equal(byId.get(a.project_id)?.auto_close, false);
    assert.equal(byId.get(b.project_id)?.name, 'beta-renamed');
    assert.equal(byId.get(b.project_id)?.scene_width, 3000);
    assert.equal((await second.api('POST', `/v2/projects/${a.project_id}/open`)).body.status, 'opened');
    await second.stop();
  });

  it('a corrupt project file is reported and does not stop the daemon', async () => {
    const projects = join(home, 'projects');
    const broken = join(projects, 'deadbeef-0000-4000-8000-000000000001');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'broken.gns3'), '{"type": "topology", "name": ');
    const d = await startTestDaemon({ home });
    const listed = (await d.api('GET', '/v2/projects')).body as Array<Record<string, unknown>>;
    const bad = listed.find((p) => p.project_id === 'deadbeef-0000-4000-8000-000000000001');
    assert.equal(bad?.status, 'error');
    assert.match(String(bad?.error), /broken\.gns3/);
    assert.match(d.log(), /cannot load project file/);
    const open = await d.api('POST', '/v2/projects/deadbeef-0000-4000-8000-000000000001/open');
    assert.equal(open.status, 409);
    assert.ok(listed.some((p) => p.name === 'alpha'), 'the good projects are still there');
    await d.stop();
  });

  it('a kill -9 during a burst of updates leaves a complete topology file', async () => {
    const d = await startTestDaemon({ home });
    const p = (await d.api('POST', '/v2/projects', { name: 'burst' })).body;
    let stop = false;
    let acknowledged = 0;
    let burstUnderWay!: () => void;
    const underWay = new Promise<void>((resolve) => (burstUnderWay = resolve));
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const r = await d.api('PUT', `/v2/projects/${p.project_id}`, { scene_width: 1000 + w * 10000 + i }).catch(() => undefined);
        if (r?.status === 200 && ++acknowledged === 40) burstUnderWay();
      }
    });
    await underWay; // the kill lands in the middle of a burst of acknowledged writes
    d.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await d.stop();
    const files = readdirSync(p.path).filter((f) => f.endsWith('.gns3'));
    assert.deepEqual(files, ['burst.gns3']);
    const topology = JSON.parse(readFileSync(join(p.path, 'burst.gns3'), 'utf8'));
    assert.equal(topology.project_id, p.project_id);
    assert.ok(topology.scene_width >= 1000);

    const again = await startTestDaemon({ home });
    const reloaded = (await again.api('GET', `/v2/projects/${p.project_id}`)).body;
    assert.equal(reloaded.name, 'burst');
    assert.notEqual(reloaded.status, 'error');
    await again.stop();
  });

  it('a kill -9 during concurrent node creates: every acknowledged node is in the file (group commit acknowledges only what is on disk)', async () => {
    const d = await startTestDaemon({ home });
    const p = (await d.api('POST', '/v2/projects', { name: 'burst-nodes' })).body;
    const acknowledged = new Set<string>();
    let stop = false;
    let enough!: () => void;
    const underWay = new Promise<void>((resolve) => (enough = resolve));
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const r = await d.api('POST', `/v2/projects/${p.project_id}/nodes`, { name: `w${w}n${i}`, node_type: 'ethernet_hub' }).catch(() => undefined);
        if (r?.status === 201) {
          acknowledged.add(r.body.name);
          if (acknowledged.size === 80) enough();
        }
      }
    });
    await underWay;
    d.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await d.stop();
    const onDisk = new Set(JSON.parse(readFileSync(join(p.path, 'burst-nodes.gns3'), 'utf8')).topology.nodes.map((n: { name: string }) => n.name));
    assert.deepEqual([...acknowledged].filter((name) => !onDisk.has(name)), [], 'no acknowledged node is missing from the file');

    const again = await startTestDaemon({ home });
    assert.equal((await again.api('POST', `/v2/projects/${p.project_id}/open`)).status, 201);
    const names = new Set((await again.api('GET', `/v2/projects/${p.project_id}/nodes`)).body.map((n: { name: string }) => n.name));
    assert.deepEqual([...acknowledged].filter((name) => !names.has(name)), []);
    await again.stop();
  });

  it('SIGTERM finishes, removes the pid file and exits 0', async () => {
    const d = await startTestDaemon({ home });
    const pidFile = join(home, 'run', `daemon-${d.port}.pid`);
    assert.equal(JSON.parse(readFileSync(pidFile, 'utf8')).pid, d.pid);
    // An in-flight request: headers and half the body sent before the signal, the rest after.
    // `Expect: 100-continue` makes the daemon say when it has the request's headers.
    const body = JSON.stringify({ name: 'last-one' });
    const req = request(`${d.url}/v2/projects`, { method: 'POST', headers: { 'content-length': Buffer.byteLength(body), expect: '100-continue' } });
    const headersReceived = new Promise((resolve) => req.once('continue', resolve));
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    await headersReceived;
    req.write(body.slice(0, 5));
    const exited = d.stop('SIGTERM');
    await d.waitForLog(/shutting down/);
    req.end(body.slice(5));
    const answer = await answered;
    assert.equal(answer.status, 201, answer.text);
    assert.equal(await exited, 0);
    assert.ok(!existsSync(pidFile));
    const again = await startTestDaemon({ home });
    assert.ok((await again.api('GET', '/v2/projects')).body.some((p: { name: string }) => p.name === 'last-one'));
    await again.stop();
  });

  it('a second daemon on the same port refuses at once and leaves the first one alone', async () => {
    const first = await startTestDaemon({ home });
    try {
      await assert.rejects(startTestDaemon({ home, flags: { port: first.port } }), /already serves/);
      assert.equal((await first.api('GET', '/v2/version')).status, 200);
    } finally {
      await first.stop();
    }
  });
});
