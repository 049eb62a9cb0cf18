import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestDaemon, removeHome, type ApiAnswer, type TestDaemon } from '../helpers/daemon.js';

const USER = 'admin';
const PASSWORD = 'content-type-pw';
const AUTH = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };

/** gns3-gui 2.2 takes a body as JSON only when Content-Type is exactly this (no charset). */
const EXACT = 'application/json';

function assertExactJson(r: ApiAnswer, what: string): void {
  assert.equal(r.headers.get('content-type'), EXACT, `${what}: Content-Type`);
  assert.doesNotThrow(() => JSON.parse(r.text), `${what}: the body is JSON`);
}

describe('every JSON answer has Content-Type exactly application/json (gns3-gui reads nothing else)', () => {
  let d: TestDaemon;
  const call = (method: string, path: string, body?: unknown) => d.api(method, path, body, AUTH);

  before(async () => {
    d = await startTestDaemon({ flags: { maxBodyBytes: 4096 }, env: { EMUCTL_AUTH_USER: USER, EMUCTL_AUTH_PASSWORD: PASSWORD, EMUCTL_AUTH_MAX_FAILURES: '2', EMUCTL_AUTH_BACKOFF_MS: '600000' } });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('successes: 200 and 201 answers of controller and compute routes', async () => {
    const checks: [string, ApiAnswer][] = [];
    const add = async (what: string, r: Promise<ApiAnswer>, status: number) => {
      const answer = await r;
      assert.equal(answer.status, status, `${what}: ${answer.text}`);
      checks.push([what, answer]);
      return answer;
    };
    await add('GET /v2/version', call('GET', '/v2/version'), 200);
    await add('POST /v2/version', call('POST', '/v2/version', { version: '2.2.42' }), 200);
    await add('GET /v2/compute/version', call('GET', '/v2/compute/version'), 200);
    await add('GET /v2/computes', call('GET', '/v2/computes'), 200);
    await add('GET /v2/templates', call('GET', '/v2/templates'), 200);
    const project = (await add('POST /v2/projects', call('POST', '/v2/projects', { name: 'ct' }), 201)).body;
    const base = `/v2/projects/${project.project_id}`;
    const a = (await add('POST nodes', call('POST', `${base}/nodes`, { name: 'SW1', node_type: 'ethernet_switch' }), 201)).body;
    const b = (await add('POST nodes (2)', call('POST', `${base}/nodes`, { name: 'SW2', node_type: 'ethernet_switch' }), 201)).body;
    const link = (await add('POST links', call('POST', `${base}/links`, { nodes: [
      { node_id: a.node_id, adapter_number: 0, port_number: 0 },
      { node_id: b.node_id, adapter_number: 0, port_number: 0 },
    ] }), 201)).body;
    await add('GET links', call('GET', `${base}/links`), 200);
    await add('PUT link', call('PUT', `${base}/links/${link.link_id}`, { suspend: false }), 201);
    await add('start_capture', call('POST', `${base}/links/${link.link_id}/start_capture`, {}), 201);
    await add('GET nodes', call('GET', `${base}/nodes`), 200);
    await add('GET /v2/projects', call('GET', '/v2/projects'), 200);
    await add('GET /v2/compute/projects', call('GET', '/v2/compute/projects'), 200);
    const idle = (await add('POST links (not capturing)', call('POST', `${base}/links`, { nodes: [
      { node_id: a.node_id, adapter_number: 0, port_number: 1 },
      { node_id: b.node_id, adapter_number: 0, port_number: 1 },
    ] }), 201)).body;
    const pcap = await call('GET', `${base}/links/${idle.link_id}/pcap`);
    assert.equal(pcap.status, 409, `a streamed route's error: ${pcap.text}`);
    checks.push(['409 from the pcap stream route', pcap]);
    for (const [what, r] of checks) assertExactJson(r, what);
  });

  it('errors: 400, 404, 405 and 409 from routes (streamed ones too), the URL matcher and the forward route', async () => {
    const answers: [string, ApiAnswer, number][] = [
      ['POST /v2/version 409', await call('POST', '/v2/version', { version: '2.2.1' }), 409],
      ['400 schema', await call('POST', '/v2/projects', { name: 5 }), 400],
      ['400 malformed JSON', await call('POST', '/v2/projects', '{not json'), 400],
      ['400 bad UUID', await call('GET', '/v2/projects/not-a-uuid'), 400],
      ['404 project', await call('GET', '/v2/projects/6d0e35f6-3a53-4b0a-b5a3-9f1d2d7c0e11'), 404],
      ['404 URL', await call('GET', '/v2/nothing-here'), 404],
      ['405', await call('DELETE', '/v2/version'), 405],
      ['404 forward to an unknown compute', await call('GET', '/v2/computes/nowhere/vpcs/nodes'), 404],
      ['404 forwarded from the local compute', await call('GET', '/v2/computes/local/ethernet_switch/nothing/here'), 404],
      ['404 compute route', await call('GET', '/v2/compute/projects/6d0e35f6-3a53-4b0a-b5a3-9f1d2d7c0e11/ethernet_switch/nodes/6d0e35f6-3a53-4b0a-b5a3-9f1d2d7c0e12'), 404],
      ['409 streamed route (import of a body that is no archive)', await call('POST', '/v2/projects/6d0e35f6-3a53-4b0a-b5a3-9f1d2d7c0e13/import', 'not a zip'), 409],
    ];
    for (const [what, r, status] of answers) {
      assert.equal(r.status, status, `${what}: ${r.text}`);
      assertExactJson(r, what);
      assert.equal(r.body.status, status, what);
    }
  });

  it('413 from the body limit', async () => {
    const r = await call('POST', '/v2/projects', { name: 'x'.repeat(8000) });
    assert.equal(r.status, 413);
    assertExactJson(r, '413');
  });

  it('the notification long-poll stream', async () => {
    const type = await new Promise<string | undefined>((resolve, reject) => {
      const req = request(`${d.url}/v2/notifications`, { headers: AUTH }, (res) => {
        resolve(res.headers['content-type']);
        req.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(type, EXACT);
  });

  it('401 without credentials, then 429 once an address sent too many wrong passwords (last: it locks this client out)', async () => {
    const none = await d.api('GET', '/v2/version');
    assert.equal(none.status, 401);
    assertExactJson(none, '401');
    const wrong = { authorization: `Basic ${Buffer.from(`${USER}:nope`).toString('base64')}` };
    for (let i = 0; i < 2; i++) assert.equal((await d.api('GET', '/v2/version', undefined, wrong)).status, 401);
    const locked = await d.api('GET', '/v2/version', undefined, wrong);
    assert.equal(locked.status, 429);
    assertExactJson(locked, '429');
  });
});
