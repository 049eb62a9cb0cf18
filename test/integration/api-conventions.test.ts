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
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.body.local, false, 'GNS3 says false for a server its GUI did not start');
    assert.equal(r.body.version, '2.2.42');
    assert.equal(r.body.emuctl_version, PACKAGE_VERSION);
    const compute = await d.api('GET', '/v2/compute/version');
    assert.equal(compute.body.version, '2.2.42');
    assert.equal(compute.body.emuctl_version, PACKAGE_VERSION);
    assert.equal(compute.body.local, false);
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

  it('a body over the limit is a 413 with the error shape, naming the limit, every time (never a reset while the client still sends)', async () => {
    // The answer goes out before the body is read; a connection closed at once reset some of these uploads (fetch failed).
    for (let i = 0; i < 40; i++) {
      const r = await d.api('POST', '/v2/projects', JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
      assert.equal(r.status, 413, `try ${i}`);
      assert.deepEqual(r.body, { message: 'Request body is too large (the limit is 1048576 bytes)', status: 413 });
    }
  });

  it('a body nested 10,000 deep is a 400 naming the limit, on every route, and nothing is kept', async () => {
    const project = (await d.api('POST', '/v2/projects', { name: 'deep' })).body;
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const put = await d.api('PUT', `/v2/projects/${project.project_id}`, `{"variables": ${deep}}`);
    assert.equal(put.status, 400, put.text);
    assert.equal(put.body.message, 'JSON body nests deeper than 64 levels (the limit)');
    const list = await d.api('GET', '/v2/projects');
    assert.equal(list.status, 200, 'the project list still answers');
    assert.equal(list.body.find((p: { project_id: string }) => p.project_id === project.project_id).variables, null);
    for (const [method, path] of [['POST', '/v2/computes/local/vpcs/nodes'], ['PUT', '/v2/computes/local/projects/x'], ['POST', '/v2/projects'], ['POST', '/v2/compute/projects']]) {
      const r = await d.api(method, path, `{"a": ${deep}}`);
      assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
      assert.match(r.body.message, /nests deeper than 64 levels/);
    }
    const objects = '{"a":'.repeat(65) + '1' + '}'.repeat(65);
    assert.match((await d.api('POST', '/v2/projects', objects)).body.message, /nests deeper than 64 levels/);
  });

  it('nesting within the limit reaches validation; brackets inside strings do not count', async () => {
    const within = '['.repeat(60) + ']'.repeat(60);
    const r = await d.api('POST', '/v2/projects', `{"name": "within", "variables": ${within}}`);
    assert.equal(r.status, 400);
    assert.match(r.body.message, /variables/, 'refused by the schema, not by the parser');
    const text = await d.api('POST', '/v2/projects', JSON.stringify({ name: '[{'.repeat(100) + '\\"[' }));
    assert.equal(text.status, 201, text.text);
  });

  it('an array or object with too many entries is a 400 naming the limit', async () => {
    const wide = await d.api('POST', '/v2/projects', `{"name": "wide", "variables": [${Array(20_000).fill('{"name":"a"}').join(',')}]}`);
    assert.equal(wide.status, 400);
    assert.equal(wide.body.message, 'JSON body has an array of more than 10000 items (the limit)');
    const keys = Array.from({ length: 10_001 }, (_, i) => `"k${i}":1`).join(',');
    const many = await d.api('POST', '/v2/projects', `{${keys}}`);
    assert.equal(many.body.message, 'JSON body has an object with more than 10000 keys (the limit)');
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
