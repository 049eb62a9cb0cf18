import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** One HTTP call with exactly the headers given (node:http, so Host and Origin are ours to set); the answer's JSON, or its first bytes for a stream. */
function raw(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const done = () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      };
      res.on('data', (chunk: string) => {
        text += chunk;
        // A long-poll that was let through never ends: what came first is enough.
        if (res.statusCode === 200 && req.path.endsWith('/notifications')) {
          res.destroy();
          done();
        }
      });
      res.on('end', done);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A websocket handshake on a bare socket; resolves with everything the daemon sent until it closed the connection (or the 101 line). */
function upgradeOnSocket(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const lines = [`GET ${path} HTTP/1.1`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', ...Object.entries({ Host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`)];
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (text.startsWith('HTTP/1.1 101')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the daemon neither upgraded nor closed the connection within 15 s; got: ${text}`));
    }, 15_000).unref();
  });
}

const assertRefused = (r: RawAnswer, what: RegExp, label: string) => {
  assert.equal(r.status, 403, `${label}: ${JSON.stringify(r.body)}`);
  assert.match(r.headers['content-type'] ?? '', /application\/json/, label);
  assert.equal(r.body.status, 403, label);
  assert.match(r.body.message, what, label);
  assert.equal(r.headers['access-control-allow-origin'], undefined, `${label}: no CORS header on a refusal`);
};

describe('request guard (Origin, Host, CORS)', () => {
  let d: TestDaemon;
  const text = { 'content-type': 'text/plain' };
  before(async () => {
    d = await startTestDaemon();
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('refuses a Host that is not one of its names (DNS rebinding), on every method, with 403 JSON', async () => {
    for (const host of ['evil.example', `evil.example:${d.port}`, 'EVIL.example', `127.0.0.1.evil.example:${d.port}`, `localhost.evil.example`, 'evil.example@127.0.0.1', '127.0.0.2']) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        assertRefused(await raw(d.port, method, '/v2/version', { host }), /Host '.*' is not a name of this daemon: add it to allowed_hosts/, `${method} Host: ${host}`);
      }
    }
    const id = randomUUID();
    assertRefused(await raw(d.port, 'POST', '/v2/projects', { host: 'evil.example', ...text }, JSON.stringify({ name: 'rebound', project_id: id })), /Host/, 'POST /v2/projects');
    assert.equal((await d.api('GET', `/v2/projects/${id}`)).status, 404, 'nothing was created');
  });

  it('answers its own names, whatever the case, with or without a port', async () => {
    for (const host of [`127.0.0.1:${d.port}`, '127.0.0.1', `LOCALHOST:${d.port}`, 'localhost', `[::1]:${d.port}`, '[::1]', 'localhost:1']) {
      const r = await raw(d.port, 'GET', '/v2/version', { host });
      assert.equal(r.status, 200, `Host: ${host}: ${JSON.stringify(r.body)}`);
    }
  });

  it('refuses an Origin of another site for every method, and nothing is created', async () => {
    const origin = 'http://127.0.0.2:8080';
    const id = randomUUID();
    const body = JSON.stringify({ name: 'cross-site', project_id: id });
    assertRefused(await raw(d.port, 'POST', '/v2/projects', { origin, ...text }, body), /Origin 'http:\/\/127\.0\.0\.2:8080' is not allowed: add it to cors_origins/, 'POST text/plain');
    assertRefused(await raw(d.port, 'POST', '/v2/projects', { origin, 'content-type': 'application/x-www-form-urlencoded' }, body), /Origin/, 'POST form');
    assert.equal((await d.api('GET', `/v2/projects/${id}`)).status, 404, 'nothing was created');

    const project = await d.api('POST', '/v2/projects', { name: 'target' });
    assert.equal(project.status, 201);
    const path = `/v2/projects/${project.body.project_id}`;
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      assertRefused(await raw(d.port, method, path, { origin, ...text }, method === 'PUT' ? JSON.stringify({ name: 'renamed' }) : undefined), /Origin/, method);
    }
    assertRefused(await raw(d.port, 'OPTIONS', path, { origin, 'access-control-request-method': 'DELETE' }), /Origin/, 'preflight');
    assertRefused(await raw(d.port, 'POST', `${path}/close`, { origin }), /Origin/, 'close');
    const after = await d.api('GET', path);
    assert.equal(after.status, 200, 'the project is still there');
    assert.equal(after.body.name, 'target', 'and unchanged');
    assert.equal(after.body.status, 'opened');
  });

  it('refuses Origin: null (sandboxed frames, file: and data: pages) and origins that only look like its own', async () => {
    assertRefused(await raw(d.port, 'POST', '/v2/projects', { origin: 'null', ...text }, '{"name":"from-null"}'), /Origin 'null' is never allowed/, 'null');
    for (const origin of [`http://127.0.0.1:${d.port + 1}`, `https://127.0.0.1:${d.port}`, `http://127.0.0.2:${d.port}`, `http://localhost.evil.example:${d.port}`, `http://127.0.0.1:${d.port}/x`, 'file://', '*']) {
      assertRefused(await raw(d.port, 'GET', '/v2/version', { origin }), /Origin/, origin);
    }
    assert.equal((await d.api('GET', '/v2/projects')).body.some((p: { name: string }) => p.name === 'from-null'), false);
  });

  it('lets its own origins through, text/plain bodies included, with CORS headers naming the origin (never *)', async () => {
    for (const origin of [`http://127.0.0.1:${d.port}`, `http://localhost:${d.port}`, `http://[::1]:${d.port}`]) {
      const r = await raw(d.port, 'POST', '/v2/projects', { origin, ...text }, JSON.stringify({ name: `own-${origin.length}-${randomUUID().slice(0, 4)}` }));
      assert.equal(r.status, 201, `${origin}: ${JSON.stringify(r.body)}`);
      assert.equal(r.headers['access-control-allow-origin'], origin);
      assert.match(String(r.headers.vary), /Origin/);
      assert.equal(r.headers['access-control-allow-credentials'], undefined, 'no credentials without auth');
    }
  });

  it('lets through a page served from the very host and port the request was sent to (an SSH tunnel\'s port)', async () => {
    const r = await raw(d.port, 'GET', '/v2/version', { host: 'localhost:9999', origin: 'http://localhost:9999' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assertRefused(await raw(d.port, 'GET', '/v2/version', { host: 'localhost:9999', origin: 'http://localhost:9998' }), /Origin/, 'another port');
    assertRefused(await raw(d.port, 'GET', '/v2/version', { host: 'localhost:9999', origin: 'https://localhost:9999' }), /Origin/, 'another scheme');
  });

  it('refuses long-polls from another origin or host, and lets a client with neither through', async () => {
    for (const path of ['/v2/notifications']) {
      assertRefused(await raw(d.port, 'GET', path, { origin: 'http://evil.example' }), /Origin/, `${path} Origin`);
      assertRefused(await raw(d.port, 'GET', path, { origin: 'null' }), /Origin/, `${path} null`);
      assertRefused(await raw(d.port, 'GET', path, { host: 'evil.example' }), /Host/, `${path} Host`);
      const ok = await raw(d.port, 'GET', path);
      assert.equal(ok.status, 200);
    }
  });

  it('refuses websocket upgrades from another origin or host: an HTTP 403 with JSON on the socket, then the connection closes', async () => {
    const project = await d.api('POST', '/v2/projects', { name: 'ws-target' });
    for (const path of ['/v2/notifications/ws', `/v2/projects/${project.body.project_id}/notifications/ws`, '/v2/compute/notifications/ws']) {
      for (const headers of [{ Origin: 'http://127.0.0.2:8080' }, { Origin: 'null' }, { Host: 'evil.example' }] as Record<string, string>[]) {
        const answer = await upgradeOnSocket(d.port, path, headers);
        assert.match(answer, /^HTTP\/1\.1 403 /, `${path} ${JSON.stringify(headers)}: ${answer}`);
        const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
        assert.equal(json.status, 403);
      }
      assert.match(await upgradeOnSocket(d.port, path, {}), /^HTTP\/1\.1 101 /, `${path}: a client without Origin is upgraded`);
      assert.match(await upgradeOnSocket(d.port, path, { Origin: `http://localhost:${d.port}` }), /^HTTP\/1\.1 101 /, `${path}: the daemon's own origin is upgraded`);
    }
    // The same through a websocket client, as a page's script would see it.
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${d.port}/v2/notifications/ws`, { origin: 'http://evil.example' });
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode!);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('the websocket opened')));
      ws.on('error', () => undefined);
    });
    assert.equal(refused, 403);
  });

  it('without Origin: refuses what a browser marks cross-site (<img>, <script>) but top-level navigations; same-origin and non-browser clients pass', async () => {
    const crossSite = (mode: string, dest: string) => ({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': mode, 'sec-fetch-dest': dest });
    assertRefused(await raw(d.port, 'GET', '/v2/notifications', crossSite('no-cors', 'image')), /Cross-site GET refused/, '<img> long-poll');
    assertRefused(await raw(d.port, 'GET', '/v2/projects', crossSite('no-cors', 'script')), /Cross-site/, '<script>');
    assertRefused(await raw(d.port, 'GET', '/v2/projects', { ...crossSite('navigate', 'iframe') }), /Cross-site/, '<iframe>');
    assertRefused(await raw(d.port, 'GET', '/v2/projects', { ...crossSite('no-cors', 'empty'), 'sec-fetch-site': 'same-site' }), /Cross-site/, 'same-site fetch');
    assertRefused(await raw(d.port, 'POST', '/v2/projects', crossSite('navigate', 'document'), '{"name":"nav-post"}'), /Cross-site POST/, 'POST navigation without Origin');
    assert.equal((await raw(d.port, 'GET', '/v2/version', crossSite('navigate', 'document'))).status, 200, 'a link to the daemon');
    assert.equal((await raw(d.port, 'GET', '/v2/version', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).status, 200);
    assert.equal((await raw(d.port, 'GET', '/v2/version', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' })).status, 200, 'typed in the address bar');
  });

  it('keeps GNS3\'s behaviour for clients without Origin: the body is JSON whatever the Content-Type', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json']) {
      const id = randomUUID();
      const r = await raw(d.port, 'POST', '/v2/projects', { 'content-type': contentType }, JSON.stringify({ name: `gns3-${id.slice(0, 8)}`, project_id: id }));
      assert.equal(r.status, 201, `${contentType}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.project_id, id);
      assert.equal(r.headers['access-control-allow-origin'], undefined);
    }
    const noType = await raw(d.port, 'POST', '/v2/projects', {}, JSON.stringify({ name: 'no-type' }));
    assert.equal(noType.status, 201);
    // HTTP/1.0 with no Host: no browser sends that, so there is nothing to rebind.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(d.port, '127.0.0.1', () => socket.write('GET /v2/version HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });
});

describe('request guard settings: cors_origins, allowed_hosts, auth', () => {
  let d: TestDaemon;
  const ui = 'http://127.0.0.2:8080';
  before(async () => {
    d = await startTestDaemon({
      flags: { allowedHosts: ['emuctl.lab.example'] },
      env: { EMUCTL_CORS_ORIGINS: `${ui},https://ui.example`, EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 'pw' },
    });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });
  const auth = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };

  it('answers the preflight of a cors_origins page without credentials: 204 with methods, headers (Authorization too) and credentials', async () => {
    const r = await raw(d.port, 'OPTIONS', '/v2/projects', { origin: ui, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' });
    assert.equal(r.status, 204);
    assert.equal(r.headers['access-control-allow-origin'], ui);
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    assert.match(String(r.headers['access-control-allow-methods']), /POST/);
    assert.match(String(r.headers['access-control-allow-methods']), /DELETE/);
    assert.match(String(r.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(r.headers['access-control-allow-headers']), /Content-Type/);
    assert.match(String(r.headers.vary), /Origin/);
  });

  it('lets a cors_origins page call the API with credentials and read the answer; others are refused before auth', async () => {
    const r = await raw(d.port, 'POST', '/v2/projects', { origin: ui, 'content-type': 'application/json', ...auth }, '{"name":"from-ui"}');
    assert.equal(r.status, 201);
    assert.equal(r.headers['access-control-allow-origin'], ui);
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    assert.match(String(r.headers['access-control-expose-headers']), /X-Route/);
    assert.equal((await raw(d.port, 'GET', '/v2/version', { origin: 'https://ui.example', ...auth })).headers['access-control-allow-origin'], 'https://ui.example');
    assertRefused(await raw(d.port, 'GET', '/v2/version', { origin: 'http://127.0.0.3:8080', ...auth }), /Origin/, 'an origin not listed, with the right password');
    const unauthenticated = await raw(d.port, 'GET', '/v2/version', { origin: ui });
    assert.equal(unauthenticated.status, 401, 'an allowed origin still needs the password');
    assert.equal(unauthenticated.headers['access-control-allow-origin'], ui, 'and can read why');
  });

  it('answers to an allowed_hosts name, and to pages served from it on its port', async () => {
    assert.equal((await raw(d.port, 'GET', '/v2/version', { host: `emuctl.lab.example:${d.port}`, ...auth })).status, 200);
    assert.equal((await raw(d.port, 'GET', '/v2/version', { host: 'EMUCTL.lab.example', origin: `http://emuctl.lab.example:${d.port}`, ...auth })).status, 200);
    assertRefused(await raw(d.port, 'GET', '/v2/version', { host: 'other.lab.example', ...auth }), /Host/, 'a name not listed');
  });
});
