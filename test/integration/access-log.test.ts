import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { openWebSocket } from '../helpers/notifications.js';

const PASSWORD = 'access-log-pw-4711';
const auth = (password: string) => ({ authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` });

describe('access log', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon({ flags: { debug: true }, env: { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: PASSWORD } })));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('with --debug, one line per request: method, route template, status, time and client', async () => {
    assert.equal((await d.api('GET', '/v2/version', undefined, auth(PASSWORD))).status, 200);
    await d.waitForLog(/access: GET \/v2\/version 200 \d+\.\d ms from 127\.0\.0\.1/);
    const missing = '/v2/projects/0b2e3c1a-8f0e-4a53-9d7b-6c1f2e3d4a5b';
    assert.equal((await d.api('GET', missing, undefined, auth(PASSWORD))).status, 404);
    await d.waitForLog(/access: GET \/v2\/projects\/\{project_id\} 404 \d+\.\d ms from 127\.0\.0\.1/);
    assert.equal((await d.api('GET', '/v2/no/such/route', undefined, auth(PASSWORD))).status, 404);
    await d.waitForLog(/access: GET \/v2\/no\/such\/route 404 /);
  });

  it('a notification websocket gets its line (101) when it closes', async () => {
    const ws = await openWebSocket(d.url, '/v2/notifications/ws', auth(PASSWORD));
    await ws.next('ping');
    ws.socket.close();
    await d.waitForLog(/access: GET \/v2\/notifications\/ws 101 \d+\.\d ms from 127\.0\.0\.1 \(websocket\)/);
  });

  it('refused logins are logged too, and no line holds a password, an Authorization header or a query string', async () => {
    assert.equal((await d.api('GET', '/v2/computes', undefined, auth('wrong-guess-0815'))).status, 401);
    await d.waitForLog(/access: GET \/v2\/computes 401 /);
    assert.equal((await d.api('GET', '/v2/templates?token=query-secret-42&password=query-pw-99', undefined, auth(PASSWORD))).status, 200);
    await d.waitForLog(/access: GET \/v2\/templates 200 /);
    assert.equal((await d.api('GET', '/v2/projects/0b2e3c1a-8f0e-4a53-9d7b-6c1f2e3d4a5c?token=error-secret-17', undefined, auth(PASSWORD))).status, 404);
    await d.waitForLog(/access: GET \/v2\/projects\/\{project_id\} 404 [^]*access: GET \/v2\/projects\/\{project_id\} 404 /);
    const log = d.log();
    for (const secret of [PASSWORD, 'wrong-guess-0815', 'query-secret-42', 'query-pw-99', 'error-secret-17', Buffer.from(`admin:${PASSWORD}`).toString('base64'), 'Basic ']) {
      assert.ok(!log.includes(secret), `the log holds ${secret}`);
    }
  });

  it('without --debug there is no access log', async () => {
    const quiet = await startTestDaemon();
    try {
      assert.equal((await quiet.api('GET', '/v2/version')).status, 200);
      assert.equal((await quiet.api('GET', '/v2/nothing')).status, 404);
      await quiet.stop();
      assert.doesNotMatch(quiet.log(), /access:/);
    } finally {
      await quiet.stop();
      removeHome(quiet.home);
    }
  });
});
