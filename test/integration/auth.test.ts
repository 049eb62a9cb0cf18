import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

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

  it('after N wrong passwords an address gets 429 with Retry-After, logged once per wait; the wait is honoured, then it may try again', { timeout: 60_000 }, async () => {
    const guarded = await startTestDaemon({ env: { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 'right', EMUCTL_AUTH_MAX_FAILURES: '3', EMUCTL_AUTH_BACKOFF_MS: '1500' } });
    try {
      const call = (password?: string) => guarded.api('GET', '/v2/version', undefined, password === undefined ? {} : basic('admin', password));
      for (let i = 0; i < 5; i++) assert.equal((await call()).status, 401, 'requests without credentials are not counted');
      for (let i = 0; i < 3; i++) assert.equal((await call(`wrong${i}`)).status, 401);
      const blockedAt = Date.now();
      const statuses = [];
      for (let i = 0; i < 20; i++) statuses.push((await call(i === 10 ? 'right' : 'wrong')).status);
      assert.deepEqual(new Set(statuses), new Set([429]), 'every try waits, the right password too');
      const r = await call('right');
      assert.equal(r.status, 429);
      const retryAfter = r.headers.get('retry-after');
      assert.ok(retryAfter === '1' || retryAfter === '2', `Retry-After ${retryAfter}: the seconds left of the 1.5 s wait, rounded up`);
      assert.equal(r.body.message, `Too many failed logins from 127.0.0.1: retry in ${retryAfter} s`);
      const lines = guarded.log().split('\n').filter((l) => l.includes('failed logins'));
      assert.equal(lines.length, 1, guarded.log());
      assert.match(lines[0], /WARN +auth: 3 failed logins from 127\.0\.0\.1; it gets 429 for 2 s/);

      let answer = await call('right');
      while (answer.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await call('right');
      }
      assert.equal(answer.status, 200);
      assert.ok(Date.now() - blockedAt >= 1450, `the wait is honoured (${Date.now() - blockedAt} ms)`);
      for (let i = 0; i < 2; i++) assert.equal((await call('wrong')).status, 401, 'the right password started it afresh');
    } finally {
      await guarded.stop();
      removeHome(guarded.home);
    }
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
