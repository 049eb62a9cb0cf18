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
