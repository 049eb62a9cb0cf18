import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, type IncomingHttpHeaders } from 'node:http';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

/** GET /v2/version from a chosen loopback address, timed. */
function timedCall(port: number, headers: Record<string, string>, localAddress?: string): Promise<{ status: number; headers: IncomingHttpHeaders; text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v2/version', headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('basic auth', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 's3cret' } });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('answers 401 with WWW-Authenticate without credentials, on every route', async () => {
    for (const path of ['/v2/version', '/v2/projects', '/v2/computes', '/v2/does-not-exist']) {
      const r = await d.api('GET', path);
      assert.equal(r.status, 401, path);
      assert.equal(r.headers.get('www-authenticate'), 'Basic realm="emuctl"');
      assert.equal(r.body.status, 401);
    }
  });

  it('answers 401 with a wrong password and 200 with the right one', async () => {
    assert.equal((await d.api('GET', '/v2/version', undefined, basic('admin', 'nope'))).status, 401);
    assert.equal((await d.api('GET', '/v2/version', undefined, basic('admin', 's3cret'))).status, 200);
    assert.equal((await d.api('POST', '/v2/projects', { name: 'authed' }, basic('admin', 's3cret'))).status, 201);
  });

  it('takes the password from a file with --auth-password-file; flags win over env', async () => {
    const file = join(d.home, 'password');
    writeFileSync(file, 'from-file\n');
    const other = await startTestDaemon({ flags: { authUser: 'flaguser', authPasswordFile: file }, env: { EMUCTL_AUTH_USER: 'envuser', EMUCTL_AUTH_PASSWORD: 'envpass' } });
    try {
      assert.equal((await other.api('GET', '/v2/version', undefined, basic('flaguser', 'from-file'))).status, 200);
      assert.equal((await other.api('GET', '/v2/version', undefined, basic('envuser', 'envpass'))).status, 401);
    } finally {
      await other.stop();
      removeHome(other.home);
    }
  });

  it('after N wrong passwords an address\'s further failures get 429 with Retry-After, held back; the right password still passes at once', { timeout: 90_000 }, async () => {
    const guarded = await startTestDaemon({ env: { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 'right', EMUCTL_AUTH_MAX_FAILURES: '3', EMUCTL_AUTH_BACKOFF_MS: '4000' } });
    try {
      const call = (password?: string, from?: string) => timedCall(guarded.port, password === undefined ? {} : basic('admin', password), from);
      for (let i = 0; i < 5; i++) assert.equal((await call()).status, 401, 'requests without credentials are not counted');
      for (let i = 0; i < 3; i++) assert.equal((await call(`wrong${i}`)).status, 401);
      await guarded.waitForLog(/failed logins/);
      const lines = () => guarded.log().split('\n').filter((l) => l.includes('failed logins'));
      assert.equal(lines().length, 1, guarded.log());
      assert.match(lines()[0], /WARN +auth: 3 failed logins from 127\.0\.0\.1; its failures get 429 for 4 s/);

      // The owner on the same address: the right password passes at once, however many failures came before.
      for (let i = 0; i < 3; i++) {
        const owner = await call('right');
        assert.equal(owner.status, 200, owner.text);
        assert.ok(owner.ms < 2000, `the right password is not held back (${owner.ms} ms)`);
      }
      // A further failure is a 429, held back for the wait; the right password sent meanwhile does not wait for it.
      const slowed = call('wrong-again');
      const owner = await call('right');
      assert.equal(owner.status, 200);
      const refused = await slowed;
      assert.equal(refused.status, 429, refused.text);
      assert.ok(refused.ms >= 3000, `the failure was held back for the wait (${refused.ms} ms)`);
      assert.ok(owner.ms < refused.ms, 'the right password did not wait behind the failure');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 8, `Retry-After ${refused.headers['retry-after']}`);
      assert.equal(refused.headers['www-authenticate'], 'Basic realm="emuctl"');
      const body = JSON.parse(refused.text);
      assert.equal(body.status, 429);
      assert.match(body.message, /^Invalid username or password; too many failed logins from 127\.0\.0\.1/);

      // Another address is not slowed by this one's failures.
      const other = await call('wrong', '127.0.0.2');
      assert.equal(other.status, 401, other.text);
      assert.ok(other.ms < 2000, `another address's failure is not held (${other.ms} ms)`);

      // A burst of failures: every one refused, and the right password passes at once in the middle of it.
      const burst = Array.from({ length: 12 }, (_, i) => call(`burst${i}`));
      const middle = await call('right');
      assert.equal(middle.status, 200);
      assert.ok(middle.ms < 2000, `the right password passes during a burst of failures (${middle.ms} ms)`);
      assert.deepEqual(new Set((await Promise.all(burst)).map((r) => r.status)), new Set([429]));
      assert.equal((await call('right')).status, 200);
    } finally {
      await guarded.stop();
      removeHome(guarded.home);
    }
  });

  it('malformed, foreign-scheme and huge Authorization headers are a 401 JSON, never counted or a 500', async () => {
    const headers = ['Bearer abc', 'Basic', 'Basic !!!!', 'Basic ====', `Basic ${'A'.repeat(12_000)}`, 'Digest username="admin"', 'basic YWRtaW46czNjcmV0 extra'];
    for (const authorization of headers) {
      const r = await timedCall(d.port, { authorization });
      assert.equal(r.status, 401, `${authorization.slice(0, 30)}: ${r.text}`);
      assert.equal(JSON.parse(r.text).status, 401);
    }
    assert.equal((await timedCall(d.port, { authorization: 'bAsIc YWRtaW46czNjcmV0' })).status, 200, 'the scheme is case-insensitive');
    // Beyond Node's 16 KB of headers the parser refuses the request before the app: still a JSON answer.
    const huge = await timedCall(d.port, { authorization: `Basic ${'A'.repeat(20_000)}` });
    assert.equal(huge.status, 431);
    assert.match(String(huge.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(huge.text), { message: 'Request headers are too large', status: 431 });
  });

  it('is off when not configured', async () => {
    const open = await startTestDaemon();
    try {
      assert.equal((await open.api('GET', '/v2/version')).status, 200);
    } finally {
      await open.stop();
      removeHome(open.home);
    }
  });
});
