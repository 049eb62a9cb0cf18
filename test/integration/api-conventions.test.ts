import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const PACKAGE_VERSION = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;

describe('API conventions', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon()));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('GET /v2/version answers the GNS3 version (2.2.42 by default) and emuctl\'s own, with X-Route and JSON', async () => {
    const r = await d.api('GET', '/v2/version');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-route'), '/v2/version');
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    assert.equal(r.body.local, true);
    assert.equal(r.body.version, '2.2.42');
    assert.equal(r.body.emuctl_version, PACKAGE_VERSION);
    const compute = await d.api('GET', '/v2/compute/version');
    assert.equal(compute.body.version, '2.2.42');
    assert.equal(compute.body.emuctl_version, PACKAGE_VERSION);
  });

  it('POST /v2/version: 200 for the same version, 409 for another, as GNS3 checks a client', async () => {
    const same = await d.api('POST', '/v2/version', { version: '2.2.42' });
    assert.equal(same.status, 200);
    assert.deepEqual(same.body, { version: '2.2.42' });
    const other = await d.api('POST', '/v2/version', { version: '2.2.41' });
    assert.equal(other.status, 409);
    assert.match(other.body.message, /Client version 2\.2\.41 is not the same as server version 2\.2\.42/);
    assert.equal((await d.api('POST', '/v2/version', {})).status, 400);
    assert.equal((await d.api('POST', '/v2/version', { version: '2.2.42', extra: 1 })).status, 400);
  });

  it('--gns3-version changes what /v2/version and the capabilities report', async () => {
    const other = await startTestDaemon({ flags: { role: 'compute', gns3Version: '2.2.40' } });
    try {
      assert.equal((await other.api('GET', '/v2/version')).body.version, '2.2.40');
      assert.equal((await other.api('GET', '/v2/compute/capabilities')).body.version, '2.2.40');
      assert.equal((await other.api('GET', '/v2/compute/version')).body.version, '2.2.40');
    } finally {
      await other.stop();
      removeHome(other.home);
    }
  });

  it('parses the body as JSON whatever the Content-Type says (curl -d)', async () => {
    const r = await d.api('POST', '/v2/projects', '{"name":"form-encoded"}', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(r.status, 201);
    assert.equal(r.body.name, 'form-encoded');
  });

  it('merges the query string into the body before validation', async () => {
    const r = await d.api('POST', '/v2/projects?name=from-query&auto_open=true');
    assert.equal(r.status, 201);
    assert.equal(r.body.name, 'from-query');
    assert.equal(r.body.auto_open, true);
  });

  it('malformed JSON is a 400 with the error shape', async () => {
    const r = await d.api('POST', '/v2/projects', '{"name": ');
    assert.equal(r.status, 400);
    assert.deepEqual(Object.keys(r.body).sort(), ['message', 'status']);
    assert.equal(r.body.status, 400);
    assert.match(r.body.message, /Invalid JSON/);
  });

  it('schema violations name the field', async () => {
    const missing = await d.api('POST', '/v2/projects', {});
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /'name' is a required property/);
    const extra = await d.api('POST', '/v2/projects', { name: 'x', colour: 'red' });
    assert.equal(extra.status, 400);
    assert.match(extra.body.message, /'colour'/);
    const wrongType = await d.api('POST', '/v2/projects', { name: 'y', auto_start: 'yes' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.message, /auto_start/);
  });

  it('an id that is not a UUID is a 400 with X-Route; an unknown one a 404', async () => {
    const bad = await d.api('GET', '/v2/projects/not-a-uuid');
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('x-route'), '/v2/projects/{project_id}');
    const unknown = await d.api('GET', '/v2/projects/6b2a7c1e-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.status, 404);
  });

  it('unknown URLs give JSON 404, a wrong method JSON 405 with Allow', async () => {
    const r = await d.api('GET', '/v2/no/such/route');
    assert.equal(r.status, 404);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    assert.equal(r.body.status, 404);
    const m = await d.api('PATCH', '/v2/projects');
    assert.equal(m.status, 405);
    assert.match(m.headers.get('allow')!, /GET/);
    assert.equal(m.body.status, 405);
  });

  it('a body over the limit is a 413 with the error shape', async () => {
    const r = await d.api('POST', '/v2/projects', JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, { message: 'Request body is too large', status: 413 });
  });

  it('never answers HTML or a stack trace', async () => {
    for (const [method, path, body] of [
      ['POST', '/v2/projects', '[1,2'],
      ['PUT', '/v2/projects/zzz', '{}'],
      ['GET', '/v2/%E0%A4%A', undefined],
      ['POST', '/v2/projects', '"just a string"'],
    ] as const) {
      const r = await d.api(method, path, body);
      assert.ok(r.status >= 400 && r.status < 500, `${method} ${path} -> ${r.status}`);
      assert.doesNotMatch(r.text, /<html|at \w+ \(|node_modules/i);
      assert.equal(typeof r.body?.message, 'string');
    }
  });

  it('the built-in local compute is listed', async () => {
    const r = await d.api('GET', '/v2/computes');
    assert.equal(r.status, 200);
    const local = r.body.find((c: { compute_id: string }) => c.compute_id === 'local');
    assert.ok(local);
    assert.equal(local.port, d.port);
    assert.equal(local.connected, true);
    assert.equal('password' in local, false);
    const one = await d.api('GET', '/v2/computes/local');
    assert.equal(one.status, 200);
    assert.equal((await d.api('GET', '/v2/computes/nope')).status, 404);
    assert.equal((await d.api('DELETE', '/v2/computes/local')).status, 409);
  });
});
