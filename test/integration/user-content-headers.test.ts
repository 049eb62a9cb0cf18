import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const SANDBOX = /^sandbox; default-src 'none'/;

/** A GET with a Host header of our choosing (fetch would not send a forged one). */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('headers that keep stored content from running in the daemon\'s origin', () => {
  let d: TestDaemon;
  let pid: string;
  before(async () => {
    d = await startTestDaemon();
    pid = (await d.api('POST', '/v2/projects', { name: 'xss' })).body.project_id;
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('a project file named .html comes back as a sandboxed, unsniffed download', async () => {
    const page = '<html><script>fetch("/v2/projects",{method:"POST",body:"{\\"name\\":\\"owned\\"}"})</script></html>';
    assert.equal((await fetch(`${d.url}/v2/projects/${pid}/files/evil.html`, { method: 'POST', body: page })).status, 201);
    const r = await fetch(`${d.url}/v2/projects/${pid}/files/evil.html`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), page);
    assert.equal(r.headers.get('content-type'), 'application/octet-stream');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.match(r.headers.get('content-security-policy') ?? '', SANDBOX);
    assert.equal(r.headers.get('content-disposition'), 'attachment');
  });

  it('a node file and a compute project file are downloads too', async () => {
    const pc = (await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'pc', node_type: 'vpcs', compute_id: 'local' })).body;
    const nodeFile = `${d.url}/v2/projects/${pid}/nodes/${pc.node_id}/files/page.svg`;
    assert.equal((await fetch(nodeFile, { method: 'POST', body: '<svg onload="alert(1)"/>' })).status, 201);
    for (const url of [nodeFile, `${d.url}/v2/compute/projects/${pid}/files/project-files/vpcs/${pc.node_id}/page.svg`]) {
      const r = await fetch(url);
      assert.equal(r.status, 200, url);
      await r.arrayBuffer();
      assert.equal(r.headers.get('content-disposition'), 'attachment', url);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', url);
      assert.match(r.headers.get('content-security-policy') ?? '', SANDBOX, url);
    }
  });

  it('every API answer is nosniff and sandboxed: JSON, symbols, errors, refusals', async () => {
    for (const path of ['/v2/version', '/v2/symbols/:%2Fsymbols%2Fclassic%2Fcomputer.svg/raw', '/v2/nope', `/v2/projects/${pid}/files/missing.html`]) {
      const r = await fetch(d.url + path);
      await r.arrayBuffer();
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
      assert.match(r.headers.get('content-security-policy') ?? '', SANDBOX, path);
    }
    const refused = await getWithHost(d.url, '/v2/version', 'attacker.example');
    assert.equal(refused.status, 403);
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');
    assert.match(String(refused.headers['content-security-policy']), SANDBOX);
  });

  it('answers outside /v2 (where a web UI may live) get nosniff but keep their own policy', async () => {
    const r = await fetch(`${d.url}/static/web-ui/index.html`);
    await r.arrayBuffer();
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('content-security-policy'), null);
  });
});
