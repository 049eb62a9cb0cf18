import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSettings } from '../../src/daemon/settings.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const AUTH = { authorization: `Basic ${Buffer.from('admin:webui-pw').toString('base64')}` };
const INDEX = '<!DOCTYPE html><html><head><base href="/static/web-ui/"></head><body>GNS3 Web UI stand-in</body></html>';
const SECRET = 'secret outside the UI directory';

/** A GET whose path is sent as written (fetch would resolve `..`), without following redirects. */
function rawGet(url: string, path: string, headers: Record<string, string> = AUTH): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({ hostname, port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('--web-ui serves a GNS3 Web UI directory at /static/web-ui/', () => {
  let d: TestDaemon;
  let ui: string;
  let outside: string;

  before(async () => {
    outside = mkdtempSync(join(tmpdir(), 'emuctl-webui-outside-'));
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    ui = mkdtempSync(join(tmpdir(), 'emuctl-webui-'));
    writeFileSync(join(ui, 'index.html'), INDEX);
    writeFileSync(join(ui, 'main.abc123.js'), 'console.log("ui")');
    writeFileSync(join(ui, 'styles.css'), 'body{}');
    mkdirSync(join(ui, 'assets'));
    writeFileSync(join(ui, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(ui, '.env'), 'DOTENV-CONTENT');
    symlinkSync(join(outside, 'secret.txt'), join(ui, 'leak.txt'));
    symlinkSync(outside, join(ui, 'leakdir'));
    symlinkSync(join(ui, 'styles.css'), join(ui, 'inside-link.css'));
    d = await startTestDaemon({ flags: { webUi: ui }, env: { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 'webui-pw' } });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
    rmSync(ui, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('/ redirects (302) to /static/web-ui/bundled, as GNS3; both need the credentials like every route', async () => {
    const home = await rawGet(d.url, '/');
    assert.equal(home.status, 302);
    assert.equal(home.headers.location, '/static/web-ui/bundled');
    assert.equal((await rawGet(d.url, '/', {})).status, 401);
    assert.equal((await rawGet(d.url, '/static/web-ui/main.abc123.js', {})).status, 401);
  });

  it('files are served with their content types; a path that names no file gets index.html (the UI routes in the browser)', async () => {
    const cases: [string, string, string][] = [
      ['/static/web-ui/main.abc123.js', 'application/javascript', 'console.log("ui")'],
      ['/static/web-ui/styles.css', 'text/css', 'body{}'],
      ['/static/web-ui/assets/logo.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
      ['/static/web-ui/inside-link.css', 'text/css', 'body{}'],
      ['/static/web-ui/index.html', 'text/html; charset=utf-8', INDEX],
      ['/static/web-ui/bundled', 'text/html; charset=utf-8', INDEX],
      ['/static/web-ui/server/1/project/2', 'text/html; charset=utf-8', INDEX],
      ['/static/web-ui/assets', 'text/html; charset=utf-8', INDEX],
      ['/static/web-ui/assets/', 'text/html; charset=utf-8', INDEX],
    ];
    for (const [path, type, body] of cases) {
      const r = await rawGet(d.url, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-type'], type, path);
      assert.equal(r.body, body, path);
      assert.equal(r.headers['x-route'], '/static/web-ui/{filename:.+}', path);
    }
  });

  it('nothing outside the directory and no hidden file is served: .. and dot files are 403, symlinks out get index.html', async () => {
    for (const path of ['/static/web-ui/../../etc/passwd', '/static/web-ui/%2e%2e/%2e%2e/etc/passwd', '/static/web-ui/assets/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd', '/static/web-ui/.env']) {
      const r = await rawGet(d.url, path);
      assert.ok(r.status === 403 || r.status === 404, `${path}: ${r.status}`);
      assert.ok(!r.body.includes('root:'), path);
      assert.ok(!r.body.includes('DOTENV-CONTENT'), path);
      if (r.status === 403) assert.equal(r.headers['content-type'], 'application/json', path);
    }
    assert.equal((await rawGet(d.url, '/static/web-ui/.env')).status, 403);
    for (const path of ['/static/web-ui/leak.txt', '/static/web-ui/leakdir/secret.txt']) {
      const r = await rawGet(d.url, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.body, INDEX, `${path} must not leave the UI directory`);
    }
  });

  it('the API is unchanged beside it; other methods on UI paths are 405', async () => {
    assert.equal((await d.api('GET', '/v2/version', undefined, AUTH)).status, 200);
    assert.equal((await d.api('PUT', '/static/web-ui/index.html', undefined, AUTH)).status, 405);
  });

  it('without --web-ui there is no UI: / and /static/web-ui/ are 404', async () => {
    const plain = await startTestDaemon();
    try {
      assert.equal((await rawGet(plain.url, '/', {})).status, 404);
      assert.equal((await rawGet(plain.url, '/static/web-ui/bundled', {})).status, 404);
    } finally {
      await plain.stop();
      removeHome(plain.home);
    }
  });

  it('a directory without index.html is refused at start, naming where the setting came from', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'emuctl-webui-empty-'));
    try {
      await assert.rejects(resolveSettings({ webUi: empty }, { EMUCTL_HOME: empty }), /--web-ui .* is not a GNS3 Web UI directory/);
      await assert.rejects(resolveSettings({}, { EMUCTL_HOME: empty, EMUCTL_WEB_UI: join(empty, 'missing') }), /EMUCTL_WEB_UI .* is not a GNS3 Web UI directory/);
      const settings = await resolveSettings({}, { EMUCTL_HOME: empty, EMUCTL_WEB_UI: ui });
      assert.equal(settings.sources.webUi, 'env');
      assert.ok(settings.webUi?.endsWith(ui.split('/').pop()!));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
