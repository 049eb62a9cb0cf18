// How the daemon serves its lab page (/ui/): from the package's dist/web, behind the same basic
// auth and origin rules as the API, with a strict Content-Security-Policy of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser } from '../helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const PASSWORD = 'lab-page-secret-7';
const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };

describe('the lab page files at /ui/', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon({ env: { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: PASSWORD } })));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('asks for the daemon\'s basic auth like the API', async () => {
    const r = await fetch(`${d.url}/ui/`);
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic/);
  });

  it('serves the page and its bundle from the package with a CSP that allows only its own origin', async () => {
    const page = await fetch(`${d.url}/ui/`, { headers: auth });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /connect-src 'self'/);
    assert.doesNotMatch(csp, /https?:|unsafe-eval|\*/);
    const html = await page.text();
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
    const script = html.match(/<script type="module" src="([^"]+)"/)![1];
    const bundle = await fetch(`${d.url}${script}`, { headers: auth });
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
    assert.equal(bundle.headers.get('content-security-policy'), csp);
    assert.doesNotMatch(await bundle.text(), /https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\/[^"'\s]*\.(js|css|woff2?)/i, 'the bundle loads nothing from elsewhere');
    assert.equal((await fetch(`${d.url}/ui`, { headers: auth })).status, 200);
  });

  it('answers 404 for a file it does not have and 403 for hidden or parent segments, as JSON', async () => {
    const missing = await d.api('GET', '/ui/no-such-file.js', undefined, auth);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.status, 404);
    for (const path of ['/ui/.hidden', '/ui/%2e%2e/src/version.js', '/ui/a/..%2f..%2fpackage.json']) {
      const r = await d.api('GET', path, undefined, auth);
      assert.ok(r.status === 403 || r.status === 404, `${path}: ${r.status}`);
      assert.equal(r.body.status, r.status);
    }
    assert.equal((await d.api('GET', '/ui/.hidden', undefined, auth)).status, 403);
  });

  it('refuses a page of another site like the API does', async () => {
    const r = await fetch(`${d.url}/ui/`, { headers: { ...auth, origin: 'http://evil.example' } });
    assert.equal(r.status, 403);
  });

  it('works in Chromium behind basic auth: the API calls and the notification websocket carry the login', { timeout: 120_000 }, async () => {
    const project = await d.api('POST', '/v2/projects', { name: 'behind-auth' }, auth);
    assert.equal(project.status, 201, project.text);
    const pid = project.body.project_id;
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'HUB1', node_type: 'ethernet_hub' }, auth)).status, 201);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${d.url.replace('://', `://admin:${PASSWORD}@`)}/ui/?project=${pid}`);
      await page.waitForSelector('g.node[data-name="HUB1"]', { timeout: 30_000 });
      await page.waitForSelector('body[data-events="open"]', { timeout: 30_000 });
      assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'HUB2', node_type: 'ethernet_hub' }, auth)).status, 201);
      await page.waitForSelector('g.node[data-name="HUB2"]', { timeout: 10_000 });
    } finally {
      await browser.close();
    }
  });
});
