import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { daemonRouteTable } from '../helpers/route-table.js';

/** Bodies a hostile client sends: wrong types, prototype keys, huge and odd values, broken JSON. */
const HOSTILE_BODIES = [
  '[]', '"text"', '42', 'null', 'true', '{bad json', '\u0000', '{"a":1}{"b":2}',
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}',
  JSON.stringify({ name: 'n'.repeat(200_000) }),
  JSON.stringify({ name: 1e308, x: -1, y: 1.5, port: -1, lport: 1e20, adapter_number: -3 }),
  '{"name":"x","scene_width":1e999}',
  JSON.stringify({ name: '\u0000\u001b]52;c;SGVsbG8=\u0007\u202e', path: '/etc', filters: { delay: ['x', null] }, properties: [], nodes: 'x', host: 'a\r\nb' }),
  JSON.stringify({ name: ['a'], nodes: [{ node_id: 'x' }, null, 3], svg: { a: 1 }, ports_mapping: 'x', properties: { __proto__: { x: 1 } } }),
];
/** Query strings merged into bodies: prototype keys, repeated keys, bracket syntax. */
const HOSTILE_QUERIES = ['', '?__proto__[polluted]=1&constructor[prototype][x]=1&name=a&name=b&path=%2Fetc'];

/** Routes that stream without end, start real processes or read uploads: other tests cover them. */
const NOT_WALKED = /notifications|\/pcap$|\/export$|\/import$|\/(start|reload|suspend|resume|resize_disk)$|\/qemu\/img$|\/qemu\/images\/\{filename/;

function assertJsonError(r: Response, text: string, what: string): void {
  assert.notEqual(r.status, 500, `${what} -> 500 ${text.slice(0, 200)}`);
  assert.ok(r.status < 500 || r.status === 502 || r.status === 503 || r.status === 504 || r.status === 507, `${what} -> ${r.status} ${text.slice(0, 200)}`);
  if (r.status < 400) return;
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, `${what} -> ${r.status} is not JSON`);
  const body = JSON.parse(text) as { message?: unknown; status?: unknown };
  assert.equal(typeof body.message, 'string', what);
  assert.equal(body.status, r.status, what);
  assert.doesNotMatch(body.message as string, /\n\s+at /, `${what}: a stack trace`);
}

describe('hostile input on every route', () => {
  let d: TestDaemon;
  const ids: Record<string, string> = {};
  before(async () => {
    d = await startTestDaemon();
    const pid = (ids.project_id = (await d.api('POST', '/v2/projects', { name: 'target' })).body.project_id);
    const sw = (await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'sw', node_type: 'ethernet_switch', compute_id: 'local' })).body;
    const pc = (await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'pc', node_type: 'vpcs', compute_id: 'local' })).body;
    ids.switch = sw.node_id;
    ids.vpcs = pc.node_id;
    ids.link_id = (await d.api('POST', `/v2/projects/${pid}/links`, { nodes: [{ node_id: sw.node_id, adapter_number: 0, port_number: 0 }, { node_id: pc.node_id, adapter_number: 0, port_number: 0 }] })).body.link_id;
    ids.drawing_id = (await d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg height="10" width="10"></svg>' })).body.drawing_id;
    ids.snapshot_id = (await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'snap' })).body.snapshot_id;
    ids.template_id = (await d.api('GET', '/v2/templates')).body[0].template_id;
    for (const [k, v] of Object.entries(ids)) assert.ok(v, `fixture ${k}`);
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  /** A real path for a template: the fixtures' ids (or fresh unknown UUIDs), node ids of the right type. */
  function pathOf(template: string, unknownIds: boolean): string {
    const node = /ethernet_(switch|hub)/.test(template) ? ids.switch : ids.vpcs;
    const values: Record<string, string> = {
      ...ids, node_id: node, compute_id: 'local', emulator: 'vpcs', action: 'images', adapter_number: '0', port_number: '0',
      path: 'hostile.txt', filename: 'hostile.qcow2', symbol_id: ':/symbols/classic/computer.svg', engine: 'vmware',
    };
    return template.replace(/\{(\w+)(?::[^}]*)?\}/g, (_, key: string) => (unknownIds && key.endsWith('_id') && key !== 'compute_id' && key !== 'symbol_id' ? randomUUID() : encodeURIComponent(values[key] ?? 'x')));
  }

  it('the route table is walked whole (a route added later is walked too)', () => {
    const table = daemonRouteTable();
    assert.ok(table.length > 150, `only ${table.length} routes`);
    assert.ok(table.some((t) => t.template === '/v2/computes/{compute_id}/{emulator}/{action:.+}'));
  });

  it('no hostile body or query string gets a 500, a hang or a non-JSON error', { timeout: 600_000 }, async () => {
    for (const { method, template } of daemonRouteTable()) {
      if (NOT_WALKED.test(template) || method === 'delete') continue;
      for (const body of method === 'get' ? [undefined] : HOSTILE_BODIES) {
        for (const query of HOSTILE_QUERIES) {
          const what = `${method.toUpperCase()} ${template}${query} <- ${(body ?? '').slice(0, 60)}`;
          const r = await fetch(d.url + pathOf(template, false) + query, { method: method.toUpperCase(), body, signal: AbortSignal.timeout(30_000) });
          assertJsonError(r, await r.text(), what);
        }
      }
    }
    assert.doesNotMatch(d.log(), /ERROR/, 'the daemon logged an internal error');
  });

  it('unknown ids on every route (deletes included) are a JSON 4xx, never a 500', { timeout: 300_000 }, async () => {
    for (const { method, template } of daemonRouteTable()) {
      if (NOT_WALKED.test(template) || !/\{(?!compute_id|symbol_id)\w+_id\}/.test(template)) continue;
      const r = await fetch(d.url + pathOf(template, true), { method: method.toUpperCase(), body: method === 'get' ? undefined : '{}', signal: AbortSignal.timeout(30_000) });
      const text = await r.text();
      assertJsonError(r, text, `${method.toUpperCase()} ${template} (unknown ids)`);
      assert.ok(r.status >= 400, `${method.toUpperCase()} ${template} with unknown ids -> ${r.status}`);
    }
  });

  it('odd path encodings are a JSON 400/404: bad UTF-8, NUL, encoded dots and slashes', async () => {
    const pid = ids.project_id;
    for (const path of ['/v2/projects/%ff', `/v2/projects/${pid}/files/%ff`, `/v2/projects/${pid}/files/a%00b`, `/v2/projects/${pid}/files/%2e%2e%2f%2e%2e%2fetc%2fpasswd`,
      `/v2/projects/${pid}/files/..%5c..%5cx`, '/v2/symbols/..%2f..%2f..%2fetc%2fpasswd/raw', `/v2/projects/${pid.toUpperCase()}%20`, '/v2/templates/%u0041']) {
      const r = await fetch(d.url + path);
      const text = await r.text();
      assertJsonError(r, text, path);
      assert.ok([400, 404].includes(r.status), `${path} -> ${r.status}`);
    }
  });

  it('prototype keys in a strict body are refused, and nothing inherits them', async () => {
    const r = await d.api('POST', '/v2/projects', '{"name":"proto","__proto__":{"auto_open":true,"path":"/etc"}}');
    assert.equal(r.status, 400);
    assert.match(r.body.message, /__proto__/);
    const bracket = await d.api('POST', '/v2/projects?__proto__[auto_open]=true&name=from-query');
    assert.equal(bracket.status, 400);
    assert.match(bracket.body.message, /__proto__\[auto_open\]/);
    const q = await d.api('POST', '/v2/projects?__proto__=x&name=from-query');
    assert.equal(q.status, 201);
    assert.equal(q.body.auto_open, false);
    assert.equal(q.body.name, 'from-query');
    assert.equal(Object.hasOwn(q.body, '__proto__'), false);
  });
});

describe('compute addresses: a host is a name or an address, nothing that reshapes the URL', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon()));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  const BAD_HOSTS = ['127.0.0.1\r\nX-Injected: 1', 'user:secret@127.0.0.1', '127.0.0.1/evil?', '127.0.0.1#frag', '127.0.0.1:22', 'http://127.0.0.1',
    '[::1]', 'a b', 'host\u0000name', '-leading.dash', 'x'.repeat(300), 'exa mple.com', '..', 'éxample.com'];

  it('POST /v2/computes refuses each with a 400 naming the host, and registers nothing', async () => {
    for (const host of BAD_HOSTS) {
      const r = await d.api('POST', '/v2/computes', { compute_id: 'bad', host, port: 3080 });
      assert.equal(r.status, 400, JSON.stringify(host));
      assert.match(r.body.message, /host .* is not a host name or an IP address/);
    }
    assert.deepEqual((await d.api('GET', '/v2/computes')).body.map((c: { compute_id: string }) => c.compute_id), ['local']);
  });

  it('PUT /v2/computes/{id} refuses them too and keeps the old host', async () => {
    const made = await d.api('POST', '/v2/computes', { compute_id: 'good', host: 'localhost', port: 1 });
    assert.equal(made.status, 201);
    for (const host of BAD_HOSTS) assert.equal((await d.api('PUT', '/v2/computes/good', { host })).status, 400, JSON.stringify(host));
    assert.equal((await d.api('GET', '/v2/computes/good')).body.host, 'localhost');
  });

  it('names, IPv4 and bare IPv6 addresses are taken', async () => {
    for (const [i, host] of ['127.0.0.1', '::1', 'localhost', 'compute_1.lab.example.'].entries()) {
      const r = await d.api('PUT', '/v2/computes/good', { host, port: 1 });
      assert.equal(r.status, 200, `${host}: ${r.text}`);
      assert.equal(r.body.host, host, String(i));
    }
  });
});

describe('a compute project cannot take another project\'s directory', () => {
  let d: TestDaemon;
  let victim: { project_id: string; path: string };
  before(async () => {
    d = await startTestDaemon();
    victim = (await d.api('POST', '/v2/projects', { name: 'victim' })).body;
    await d.api('POST', `/v2/projects/${victim.project_id}/nodes`, { name: 'sw', node_type: 'ethernet_switch', compute_id: 'local' });
    await d.api('POST', `/v2/projects/${victim.project_id}/close`, {});
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('a path that is, or sits inside, another project\'s directory is a 409, and the victim\'s files stay', async () => {
    for (const path of [victim.path, `${victim.path}/project-files`, `${victim.path}/project-files/captures/x`]) {
      const attacker = randomUUID();
      const r = await d.api('POST', '/v2/compute/projects', { project_id: attacker, path });
      assert.equal(r.status, 409, `${path}: ${r.text}`);
      assert.match(r.body.message, new RegExp(victim.project_id));
      assert.equal((await d.api('DELETE', `/v2/compute/projects/${attacker}`)).status, 404);
    }
    const reopened = await d.api('POST', `/v2/projects/${victim.project_id}/open`, {});
    assert.equal(reopened.status, 201);
    assert.equal((await d.api('GET', `/v2/projects/${victim.project_id}/nodes`)).body.length, 1);
  });

  it('a path holding an open project\'s directory is a 409 too; the owner\'s own path is taken', async () => {
    const parent = victim.path.slice(0, victim.path.lastIndexOf('/'));
    const inner = `${parent}/group/inner`;
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: randomUUID(), path: inner })).status, 201);
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: randomUUID(), path: `${parent}/group` })).status, 409);
    const again = await d.api('POST', '/v2/compute/projects', { project_id: victim.project_id, path: victim.path });
    assert.equal(again.status, 201, again.text);
  });
});
