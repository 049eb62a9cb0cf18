// The CLI's side of issue 17, item 3: `daemon run|start` refuse a non-loopback bind without auth
// (exit 2, one line), `daemon start` with TLS reports the fingerprint and `daemon status` pins it,
// every command verifies an https server (system CAs, --ca-file, EMUCTL_CA_FILE, --fingerprint,
// or a profile's saved trust), and `compute add --fingerprint` hands the pin to the controller.
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { profilesFile } from '../../src/client/profiles.js';
import { emuctlPaths } from '../../src/config/paths.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';
import { assertFails, cliEnv, EMUCTL_BIN, jsonOf, removeTempHome, runBin, tempHome } from './helpers/cli.js';

describe('daemon run and start beyond loopback', () => {
  const home = tempHome();
  after(() => removeTempHome(home));

  it('daemon run --host 0.0.0.0 and --host :: without auth: exit 2, one line saying why and how', async () => {
    for (const host of ['0.0.0.0', '::']) {
      const r = await runBin(['daemon', 'run', '--host', host, '--port', '0'], cliEnv(home));
      assertFails(r, 2, /^emuctl: refusing to listen on \S+ without authentication: give --auth-user USER with --auth-password-file FILE \(or EMUCTL_AUTH_PASSWORD\), or --insecure-no-auth/);
    }
  });

  it('daemon start --host 0.0.0.0 without auth: exit 2 before any daemon is started', async () => {
    const r = await runBin(['daemon', 'start', '--host', '0.0.0.0', '--port', '0'], cliEnv(home));
    assertFails(r, 2, /refusing to listen on 0\.0\.0\.0 without authentication/);
    const runDir = emuctlPaths({ EMUCTL_HOME: home }).runDir;
    assert.deepEqual(existsSync(runDir) ? readdirSync(runDir).filter((f) => f.endsWith('.pid')) : [], []);
  });

  it('unusable TLS files: exit 2, one line naming the file', async () => {
    const certs = makeTestCerts();
    try {
      assertFails(await runBin(['daemon', 'run', '--port', '0', '--tls-cert', certs.selfCert, '--tls-key', join(certs.dir, 'missing.key')], cliEnv(home)),
        2, /cannot read the TLS key .*missing\.key: ENOENT/);
      assertFails(await runBin(['daemon', 'run', '--port', '0', '--tls-cert', certs.selfCert, '--tls-key', certs.otherKey], cliEnv(home)),
        2, /the TLS key .*other\.key cannot be used: it does not belong to the certificate/);
      assertFails(await runBin(['daemon', 'start', '--port', '0', '--tls-cert', certs.selfKey, '--tls-key', certs.selfKey], cliEnv(home)),
        2, /the TLS certificate .*self\.key is not a PEM certificate/);
      assertFails(await runBin(['daemon', 'run', '--port', '0', '--tls-cert', certs.selfCert], cliEnv(home)),
        2, /TLS needs both a certificate and a key/);
    } finally {
      certs.remove();
    }
  });
});

describe('daemon start with TLS', () => {
  it('reports the certificate fingerprint; status answers over TLS; stop stops it', async () => {
    const certs = makeTestCerts();
    const home = tempHome();
    const env = cliEnv(home);
    let port: number | undefined;
    try {
      const started = jsonOf(await runBin(['--json', 'daemon', 'start', '--port', '0', '--tls-cert', certs.selfCert, '--tls-key', certs.selfKey], env));
      port = started.port;
      assert.match(started.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(started.fingerprint, certs.selfFingerprint);
      assert.equal(typeof started.version, 'string', 'the start check reached the daemon over TLS');
      const status = jsonOf(await runBin(['--json', 'daemon', 'status', '--port', String(port)], env));
      assert.equal(status.answering, true);
      assert.equal(status.version, started.version);
    } finally {
      if (port !== undefined) assert.equal((await runBin(['daemon', 'stop', '--port', String(port)], env)).code, 0);
      removeTempHome(home);
      certs.remove();
    }
  });
});

describe('daemon run with TLS', () => {
  it('says on stdout where it listens over https and the certificate fingerprint, until SIGTERM', async () => {
    const certs = makeTestCerts();
    const home = tempHome();
    const child = spawn(process.execPath, [EMUCTL_BIN, '--json', 'daemon', 'run', '--port', '0', '--tls-cert', certs.selfCert, '--tls-key', certs.selfKey],
      { env: cliEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let stdout = '';
      const started = await new Promise<any>((resolve, reject) => {
        child.stdout!.on('data', (chunk) => {
          stdout += chunk;
          if (stdout.includes('}\n')) resolve(JSON.parse(stdout));
        });
        void exited.then((code) => reject(new Error(`exited ${code}: ${stdout}`)));
      });
      assert.match(started.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(started.fingerprint, certs.selfFingerprint);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      removeTempHome(home);
      certs.remove();
    }
  });
});

describe('commands against an https daemon', () => {
  let certs: TestCerts;
  let daemon: TestDaemon;
  let home: string;

  before(async () => {
    certs = makeTestCerts();
    daemon = await startTestDaemon({ flags: { tlsCert: certs.leafCert, tlsKey: certs.leafKey } });
    home = tempHome();
  });
  after(async () => {
    await daemon?.stop();
    if (daemon) removeHome(daemon.home);
    if (home) removeTempHome(home);
    certs?.remove();
  });

  const env = (extra: NodeJS.ProcessEnv = {}) => cliEnv(home, { EMUCTL_URL: daemon.url, ...extra });

  it('fail with exit 3 and one line when the certificate is not trusted', async () => {
    assertFails(await runBin(['project', 'list'], env()), 3,
      /^emuctl: cannot trust https:\/\/127\.0\.0\.1:\d+: its certificate is not signed by a trusted CA \(\w+\); give its CA with --ca-file/);
  });

  it('succeed with --ca-file or EMUCTL_CA_FILE', async () => {
    assert.deepEqual(jsonOf(await runBin(['--json', '--ca-file', certs.caCert, 'project', 'list'], env())), []);
    assert.deepEqual(jsonOf(await runBin(['--json', 'project', 'list'], env({ EMUCTL_CA_FILE: certs.caCert }))), []);
    assertFails(await runBin(['--ca-file', join(certs.dir, 'nope.pem'), 'project', 'list'], env()), 2, /cannot read the CA file .*nope\.pem: ENOENT/);
  });

  it('succeed with the pinned fingerprint (colon-hex or plain hex); a wrong one fails with exit 3 naming both', async () => {
    assert.deepEqual(jsonOf(await runBin(['--json', '--fingerprint', certs.leafFingerprint, 'project', 'list'], env())), []);
    const plain = certs.leafFingerprint.replace(/:/g, '').toLowerCase();
    assert.deepEqual(jsonOf(await runBin(['--json', 'project', 'list'], env({ EMUCTL_FINGERPRINT: plain }))), []);
    assertFails(await runBin(['--fingerprint', certs.selfFingerprint, 'project', 'list'], env()), 3,
      new RegExp(`fingerprint ${certs.leafFingerprint}, not the pinned ${certs.selfFingerprint}`));
    assertFails(await runBin(['--fingerprint', 'AB:CD', 'project', 'list'], env()), 2, /invalid fingerprint "AB:CD"/);
  });

  it('profile add saves --ca-file or --fingerprint (file 0600), profile show prints them, and commands use them', async () => {
    const bare = cliEnv(home);
    assert.equal((await runBin(['profile', 'add', 'by-ca', '--url', daemon.url, '--ca-file', certs.caCert], bare)).code, 0);
    assert.equal((await runBin(['profile', 'add', 'pinned', '--url', daemon.url, '--fingerprint', certs.leafFingerprint.replace(/:/g, '')], bare)).code, 0);
    const file = profilesFile(emuctlPaths(bare));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')).profiles;
    assert.equal(saved['by-ca'].caFile, certs.caCert);
    assert.equal(saved.pinned.fingerprint, certs.leafFingerprint);
    const shown = await runBin(['profile', 'show', 'pinned'], bare);
    assert.match(shown.stdout, new RegExp(`TLS trust: +pinned SHA256 ${certs.leafFingerprint}`));
    for (const profile of ['by-ca', 'pinned']) {
      assert.deepEqual(jsonOf(await runBin(['--json', '--profile', profile, 'project', 'list'], bare)), [], profile);
    }
    assertFails(await runBin(['profile', 'add', 'plain', '--url', 'http://127.0.0.1:1', '--fingerprint', certs.leafFingerprint], bare), 2, /apply to https URLs only/);
    assertFails(await runBin(['profile', 'add', 'both', '--url', daemon.url, '--fingerprint', certs.leafFingerprint, '--ca-file', certs.caCert], bare), 2, /not both/);
  });
});

describe('compute add with a pinned fingerprint', () => {
  it('registers an https compute that the controller then reaches', async () => {
    const certs = makeTestCerts();
    const home = tempHome();
    let controller: TestDaemon | undefined;
    let compute: TestDaemon | undefined;
    try {
      controller = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '21800-21849', EMUCTL_CONSOLE_PORT_RANGE: '21900-21924' } });
      compute = await startTestDaemon({ flags: { role: 'compute', tlsCert: certs.selfCert, tlsKey: certs.selfKey } });
      const env = cliEnv(home, { EMUCTL_URL: controller.url });
      const added = jsonOf(await runBin(['--json', 'compute', 'add', 'tls-compute', '--url', compute.url, '--fingerprint', certs.selfFingerprint], env));
      assert.equal(added.protocol, 'https');
      assert.equal(added.fingerprint, certs.selfFingerprint);
      assert.equal(added.connected, true, added.last_error);
      const shown = await runBin(['compute', 'show', 'tls-compute'], env);
      assert.match(shown.stdout, new RegExp(`TLS trust: +pinned SHA256 ${certs.selfFingerprint}`));
      const wrong = jsonOf(await runBin(['--json', 'compute', 'add', 'wrong', '--url', compute.url, '--fingerprint', certs.leafFingerprint], env));
      assert.equal(wrong.connected, false);
      assert.match(wrong.last_error, /not the pinned/);
    } finally {
      await controller?.stop();
      await compute?.stop();
      if (controller) removeHome(controller.home);
      if (compute) removeHome(compute.home);
      removeTempHome(home);
      certs.remove();
    }
  });
});
