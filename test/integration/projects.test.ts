import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

describe('projects', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon()));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('creates, lists, shows, updates, closes, opens and deletes a project', async () => {
    const created = await d.api('POST', '/v2/projects', { name: 'lab' });
    assert.equal(created.status, 201);
    const p = created.body;
    for (const field of ['project_id', 'name', 'path', 'filename', 'status', 'auto_start', 'auto_close', 'auto_open']) assert.ok(field in p, field);
    assert.equal(p.status, 'opened');
    assert.equal(p.filename, 'lab.gns3');
    const file = join(p.path, p.filename);
    const topology = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(topology.type, 'topology');
    assert.equal(topology.project_id, p.project_id);
    assert.deepEqual(Object.keys(topology.topology).sort(), ['computes', 'drawings', 'links', 'nodes']);

    const list = await d.api('GET', '/v2/projects');
    assert.ok(list.body.some((x: { project_id: string }) => x.project_id === p.project_id));
    assert.equal((await d.api('GET', `/v2/projects/${p.project_id}`)).body.name, 'lab');

    const renamed = await d.api('PUT', `/v2/projects/${p.project_id}`, { name: 'lab2', auto_start: true });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.filename, 'lab2.gns3');
    assert.ok(existsSync(join(p.path, 'lab2.gns3')));
    assert.ok(!existsSync(file), 'old topology file removed');

    const closed = await d.api('POST', `/v2/projects/${p.project_id}/close`);
    assert.equal(closed.status, 204);
    assert.equal(closed.text, '');
    assert.equal((await d.api('GET', `/v2/projects/${p.project_id}`)).body.status, 'closed');
    const opened = await d.api('POST', `/v2/projects/${p.project_id}/open`, {});
    assert.equal(opened.status, 201);
    assert.equal(opened.body.status, 'opened');

    assert.equal((await d.api('DELETE', `/v2/projects/${p.project_id}`)).status, 204);
    assert.equal((await d.api('GET', `/v2/projects/${p.project_id}`)).status, 404);
    assert.ok(!existsSync(p.path));
  });

  it('refuses a duplicate name with 409, on create and on rename', async () => {
    await d.api('POST', '/v2/projects', { name: 'dup' });
    const again = await d.api('POST', '/v2/projects', { name: 'dup' });
    assert.equal(again.status, 409);
    assert.match(again.body.message, /dup/);
    const other = await d.api('POST', '/v2/projects', { name: 'other' });
    const rename = await d.api('PUT', `/v2/projects/${other.body.project_id}`, { name: 'dup' });
    assert.equal(rename.status, 409);
  });

  it('accepts a given project_id, refuses it twice', async () => {
    const id = 'a1b2c3d4-1111-4222-8333-444455556666';
    assert.equal((await d.api('POST', '/v2/projects', { name: 'fixed', project_id: id })).body.project_id, id);
    assert.equal((await d.api('POST', '/v2/projects', { name: 'fixed2', project_id: id })).status, 409);
  });

  it('a project name of 256+ characters is a 400 naming the limit, and leaves no directory; 250 fits', async () => {
    const projectsDir = join(d.home, 'projects');
    const before = readdirSync(projectsDir).sort();
    for (const name of ['n'.repeat(256), 'é'.repeat(300), 'x'.repeat(251)]) {
      const r = await d.api('POST', '/v2/projects', { name });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, /Project name is too long \(\d+ characters\): the limit is 250/);
    }
    assert.deepEqual(readdirSync(projectsDir).sort(), before, 'no directory left behind');
    const fits = await d.api('POST', '/v2/projects', { name: 'y'.repeat(250) });
    assert.equal(fits.status, 201, fits.text);
    assert.ok(existsSync(join(fits.body.path, fits.body.filename)));
    const rename = await d.api('PUT', `/v2/projects/${fits.body.project_id}`, { name: 'z'.repeat(256) });
    assert.equal(rename.status, 400);
    assert.match(rename.body.message, /the limit is 250/);
    assert.equal((await d.api('GET', `/v2/projects/${fits.body.project_id}`)).body.name, 'y'.repeat(250));
  });

  it('refuses a path outside the projects directory', async () => {
    const r = await d.api('POST', '/v2/projects', { name: 'escape', path: '/etc' });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /path/);
  });

  it('a null path (the schema allows it) means the default on create and "not moving" on update, never a 500', async () => {
    const made = await d.api('POST', '/v2/projects', { name: 'nullpath', path: null });
    assert.equal(made.status, 201);
    const updated = await d.api('PUT', `/v2/projects/${made.body.project_id}`, { path: null, auto_start: true });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.path, made.body.path);
    assert.equal(updated.body.auto_start, true);
  });

  it('404 for every verb on an unknown project', async () => {
    const id = '0f0f0f0f-0000-4000-8000-000000000000';
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/open'], ['POST', '/close']]) {
      const r = await d.api(method, `/v2/projects/${id}${suffix}`, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.equal(r.status, 404, `${method} ${suffix}`);
      assert.equal(r.headers.get('x-route'), `/v2/projects/{project_id}${suffix}`);
    }
  });
});
