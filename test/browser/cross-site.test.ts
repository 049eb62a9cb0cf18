import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { launchBrowser, servePage, type PageServer, type TestBrowser } from '../helpers/browser.js';

const TIMEOUT = { timeout: 120_000 };

/** Waits until `check()` holds, polling; fails with `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * What a hostile page does, without ever needing to read an answer: a `no-cors` fetch POST with a
 * text/plain JSON body, a `<form enctype=text/plain>` POST whose field name and value make a JSON
 * body, and a websocket on the notification stream. It records what it saw in `window.results`.
 */
function attackPage(daemon: string, ids: { fetch: string; form: string }): string {
  const ws = `${daemon.replace(/^http/, 'ws')}/v2/notifications/ws`;
  return `<!doctype html><html><body>
<form id="f" method="POST" enctype="text/plain" target="sink" action="${daemon}/v2/projects"><input name='{"project_id":"${ids.form}","name":"form-attack' value='"}'></form>
<script>
window.results = {};
(async () => {
  const r = window.results;
  try {
    const res = await fetch('${daemon}/v2/projects', { mode: 'no-cors', method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ name: 'fetch-attack', project_id: '${ids.fetch}' }) });
    r.fetch = res.type;
  } catch (e) {
    r.fetch = 'error: ' + e.message;
  }
  const frame = document.createElement('iframe');
  frame.name = 'sink';
  document.body.appendChild(frame);
  await new Promise((resolve) => {
    frame.addEventListener('load', resolve);
    document.getElementById('f').submit();
  });
  r.form = 'submitted';
  r.ws = await new Promise((resolve) => {
    const events = [];
    const socket = new WebSocket('${ws}');
    socket.onopen = () => events.push('open');
    socket.onmessage = () => events.push('message');
    socket.onerror = () => events.push('error');
    socket.onclose = (e) => { events.push('close ' + e.code); resolve(events); };
    setTimeout(() => socket.close(), 5000);
  });
  r.done = true;
})();
</script></body></html>`;
}

/** A web UI on another origin: a CORS fetch that reads the answer, and a websocket. */
function uiPage(daemon: string): string {
  return `<!doctype html><html><body><script>
window.results = {};
(async () => {
  const r = window.results;
  try {
    const res = await fetch('${daemon}/v2/projects', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'from-ui' }) });
    r.status = res.status;
    r.route = res.headers.get('X-Route');
    r.body = await res.json();
  } catch (e) {
    r.error = e.message;
  }
  r.ws = await new Promise((resolve) => {
    const events = [];
    const socket = new WebSocket('${daemon.replace(/^http/, 'ws')}/v2/notifications/ws');
    socket.onopen = () => { events.push('open'); socket.close(); };
    socket.onerror = () => events.push('error');
    socket.onclose = (e) => { events.push('close ' + e.code); resolve(events); };
  });
  r.done = true;
})();
</script></body></html>`;
}

async function resultsOf(browser: TestBrowser, url: string): Promise<any> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.waitForFunction('window.results && window.results.done === true', null, { timeout: 60_000 });
    return await page.evaluate('window.results');
  } finally {
    await page.close();
  }
}

describe('a page on another site cannot drive the daemon (real Chromium)', () => {
  let d: TestDaemon;
  let attacker: PageServer;
  let browser: TestBrowser;
  const ids = { fetch: randomUUID(), form: randomUUID() };

  before(async () => {
    d = await startTestDaemon({ flags: { debug: true } });
    attacker = await servePage('127.0.0.2', () => attackPage(d.url, ids));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await attacker?.close();
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('no-cors fetch POST, text/plain form POST and websocket from http://127.0.0.2 create nothing and get nothing', TIMEOUT, async () => {
    const results = await resultsOf(browser, `${attacker.origin}/`);
    assert.equal(results.fetch, 'opaque', 'the browser sent the fetch (its answer is opaque to the page)');
    assert.equal(results.form, 'submitted');
    assert.ok(!results.ws.includes('open') && !results.ws.includes('message'), `the websocket was refused: ${results.ws.join(', ')}`);
    assert.ok(results.ws.includes('error'), `the page saw an error: ${results.ws.join(', ')}`);

    // The requests did reach the daemon, and the guard refused them (not the browser).
    const refusals = () => d.log().match(new RegExp(`POST /v2/projects -> 403 Origin '${attacker.origin.replace(/\./g, '\\.')}' is not allowed`, 'g')) ?? [];
    await until(() => refusals().length >= 2, 'the two POSTs refused in the daemon log');
    assert.match(d.log(), /GET \/v2\/notifications\/ws -> 403 Origin/);

    for (const id of [ids.fetch, ids.form]) assert.equal((await d.api('GET', `/v2/projects/${id}`)).status, 404, `project ${id} was not created`);
    const names = (await d.api('GET', '/v2/projects')).body.map((p: { name: string }) => p.name);
    assert.deepEqual(names.filter((n: string) => /attack/.test(n)), []);
  });

  it('the same POST from a client without Origin (curl, scripts, GNS3) still works', TIMEOUT, async () => {
    const r = await d.api('POST', '/v2/projects', JSON.stringify({ name: 'fetch-attack', project_id: ids.fetch }), { 'content-type': 'text/plain' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await d.api('GET', `/v2/projects/${ids.fetch}`)).status, 200);
  });
});

describe('DNS rebinding: a page whose name now points at the daemon (real Chromium)', () => {
  let d: TestDaemon;
  let browser: TestBrowser;
  before(async () => {
    d = await startTestDaemon();
    // Chromium resolves evil.example to the daemon's address: the state a rebinding attack reaches.
    // Chromium's own Private Network Access check would block the rebound page's calls before they leave the browser;
    // it is off here, as in browsers without it, so that what refuses them is the daemon.
    browser = await launchBrowser({ args: ['--host-resolver-rules=MAP evil.example 127.0.0.1', '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks'] });
  });
  after(async () => {
    await browser?.close();
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('is refused: its page and its same-origin calls get 403, so it can neither read nor create', TIMEOUT, async () => {
    const page = await browser.newPage();
    try {
      const landing = await page.goto(`http://evil.example:${d.port}/v2/version`);
      assert.equal(landing?.status(), 403);
      // The attacker's own page, served under the name before it was rebound (the daemon's 403 page is sandboxed by its CSP).
      const attack = `http://evil.example:${d.port}/attack.html`;
      await page.route(attack, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>attacker</title>' }));
      await page.goto(attack);
      const id = randomUUID();
      const post = await page.evaluate(`fetch('/v2/projects', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ name: 'rebound', project_id: '${id}' }) }).then((r) => r.status)`);
      assert.equal(post, 403);
      const read = await page.evaluate(`fetch('/v2/projects').then(async (r) => [r.status, await r.text()])`) as [number, string];
      assert.equal(read[0], 403);
      assert.match(read[1], /Host 'evil\.example:\d+' is not a name of this daemon/);
      assert.equal((await d.api('GET', `/v2/projects/${id}`)).status, 404);
    } finally {
      await page.close();
    }
  });
});

describe('a web UI on an origin listed in cors_origins can use the API (real Chromium)', () => {
  let d: TestDaemon;
  let ui: PageServer;
  let other: PageServer;
  let browser: TestBrowser;
  let daemonUrl = '';
  before(async () => {
    ui = await servePage('127.0.0.2', () => uiPage(daemonUrl));
    other = await servePage('127.0.0.3', () => uiPage(daemonUrl));
    d = await startTestDaemon({ env: { EMUCTL_CORS_ORIGINS: ui.origin } });
    daemonUrl = d.url;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ui?.close();
    await other?.close();
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('a CORS fetch (with its preflight) creates a project and reads the answer; the websocket opens', TIMEOUT, async () => {
    const results = await resultsOf(browser, `${ui.origin}/`);
    assert.equal(results.error, undefined);
    assert.equal(results.status, 201);
    assert.equal(results.body.name, 'from-ui');
    assert.equal(results.route, '/v2/projects', 'X-Route is exposed to the page');
    assert.equal((await d.api('GET', `/v2/projects/${results.body.project_id}`)).status, 200);
    assert.ok(results.ws.includes('open'), `the websocket opened: ${results.ws.join(', ')}`);
  });

  it('a page on an origin not listed cannot (the allow-list is not *)', TIMEOUT, async () => {
    const before = (await d.api('GET', '/v2/projects')).body.length;
    const results = await resultsOf(browser, `${other.origin}/`);
    assert.match(String(results.error), /Failed to fetch/);
    assert.ok(!results.ws.includes('open'), `the websocket was refused: ${results.ws.join(', ')}`);
    assert.equal((await d.api('GET', '/v2/projects')).body.length, before, 'nothing was created');
  });
});
