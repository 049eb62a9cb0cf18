import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkExposure, exposureWarnings, isLoopbackHost, looseSecretWarnings } from '../../../src/daemon/exposure.js';
import { resolveSettings } from '../../../src/daemon/settings.js';

describe('exposure of the daemon', () => {
  it('loopback: 127.0.0.0/8, ::1 in any spelling, IPv4-mapped 127.x, localhost; nothing else', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '[::1]', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '198.18.0.1', '::ffff:10.0.0.1', 'lab-server', '128.0.0.1', '', '::2']) assert.equal(isLoopbackHost(host), false, host);
  });

  it('refuses a non-loopback host without auth (a user without password is no auth), unless insecureNoAuth', () => {
    const refused = /refusing to listen on 0\.0\.0\.0 without authentication: give --auth-user USER with --auth-password-file FILE \(or EMUCTL_AUTH_PASSWORD\), or --insecure-no-auth/;
    assert.throws(() => checkExposure({ host: '0.0.0.0', insecureNoAuth: false }), (err: Error & { status?: number }) => refused.test(err.message) && err.status === 400);
    assert.throws(() => checkExposure({ host: '0.0.0.0', auth: { user: 'admin', password: '' }, insecureNoAuth: false }), refused);
    assert.doesNotThrow(() => checkExposure({ host: '0.0.0.0', auth: { user: 'admin', password: 'pw' }, insecureNoAuth: false }));
    assert.doesNotThrow(() => checkExposure({ host: '0.0.0.0', insecureNoAuth: true }));
    assert.doesNotThrow(() => checkExposure({ host: '127.0.0.1', insecureNoAuth: false }));
  });

  it('warns about no auth, then about auth in clear text; nothing on loopback or with auth and TLS', () => {
    assert.match(exposureWarnings({ host: '::', insecureNoAuth: true }).join(), /--insecure-no-auth: listening on :: without authentication/);
    assert.match(exposureWarnings({ host: '::', auth: { user: 'a', password: 'b' }, insecureNoAuth: false }).join(), /without TLS: .*clear text/);
    assert.deepEqual(exposureWarnings({ host: '::', auth: { user: 'a', password: 'b' }, insecureNoAuth: false, tlsCert: '/c.pem' }), []);
    assert.deepEqual(exposureWarnings({ host: '127.0.0.1', insecureNoAuth: true }), []);
  });

  it('warns about secret files that other users may read, not about owner-only ones or missing ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'emuctl-secrets-'));
    try {
      const key = join(dir, 'key.pem');
      writeFileSync(key, 'k');
      chmodSync(key, 0o644);
      assert.deepEqual(looseSecretWarnings([{ path: key, what: 'TLS key' }]), [`the TLS key ${key} is readable by other users (mode 0644): chmod 600 it`]);
      chmodSync(key, 0o600);
      assert.deepEqual(looseSecretWarnings([{ path: key, what: 'TLS key' }, { path: undefined, what: 'auth password file' }, { path: join(dir, 'gone'), what: 'x' }]), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('settings: TLS files and insecure_no_auth from flags, environment or config file; a certificate without key is refused', async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-exposure-'));
    try {
      const config = join(home, 'tls.json');
      writeFileSync(config, JSON.stringify({ tls_cert: '/file/c.pem', tls_key: '/file/k.pem', insecure_no_auth: true }));
      const fromFile = await resolveSettings({ config }, { EMUCTL_HOME: home });
      assert.deepEqual([fromFile.tlsCert, fromFile.tlsKey, fromFile.insecureNoAuth], ['/file/c.pem', '/file/k.pem', true]);
      const fromEnv = await resolveSettings({ config }, { EMUCTL_HOME: home, EMUCTL_TLS_CERT: '/env/c.pem', EMUCTL_TLS_KEY: '/env/k.pem', EMUCTL_INSECURE_NO_AUTH: '0' });
      assert.deepEqual([fromEnv.tlsCert, fromEnv.tlsKey, fromEnv.insecureNoAuth], ['/env/c.pem', '/env/k.pem', false]);
      const defaults = await resolveSettings({}, { EMUCTL_HOME: home });
      assert.deepEqual([defaults.tlsCert, defaults.tlsKey, defaults.insecureNoAuth], [undefined, undefined, false]);
      await assert.rejects(resolveSettings({ tlsCert: '/c.pem' }, { EMUCTL_HOME: home }), /TLS needs both a certificate and a key: give --tls-key/);
      await assert.rejects(resolveSettings({ tlsKey: '/k.pem' }, { EMUCTL_HOME: home }), /give --tls-cert/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
