// Exposing a daemon (issue 17, item 3): HTTPS and WSS with --tls-cert/--tls-key, the fingerprint it
// logs, the refusal to listen beyond loopback without auth, and the client side of verification
// (CA file, pinned fingerprint, a mismatch that sends nothing). Certificates come from openssl.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { createApiClient } from '../../src/client/got-client.js';
import { openNotifications } from '../../src/client/notifications.js';
import { readText, streamedRequest } from '../../src/client/streamed-http.js';
import { UntrustedServerError } from '../../src/client/errors.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

/** One HTTPS call trusting `ca` (PEM) only, with Node's own client: JSON in, JSON out. */
function httpsCall(url: string, ca: Buffer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method, ca, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        let parsed: unknown;
        try { parsed = JSON.parse(text); } catch { parsed = undefined; }
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('a daemon serving HTTPS and WSS', () => {
  let certs: TestCerts;
  let daemon: TestDaemon;
  let ca: Buffer;

  before(async () => {
    certs = makeTestCerts();
    ca = readFileSync(certs.caCert);
    daemon = await startTestDaemon({ flags: { tlsCert: certs.leafCert, tlsKey: certs.leafKey } });
  });
  after(async () => {
    await daemon?.stop();
    if (daemon) removeHome(daemon.home);
    certs?.remove();
  });

  it('says https in its listening line and logs the certificate fingerprint as openssl prints it, never the key', () => {
    assert.match(daemon.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(daemon.log().includes(`SHA256 fingerprint: ${certs.leafFingerprint}`), daemon.log());
    const key = readFileSync(certs.leafKey, 'utf8').split('\n').filter((line) => line && !line.startsWith('-----'));
    assert.ok(!daemon.log().includes('PRIVATE KEY') && key.every((line) => !daemon.log().includes(line)), 'the key is not logged');
  });

  it('answers over TLS for a client that trusts its CA, and speaks no plain HTTP', async () => {
    const r = await httpsCall(daemon.url, ca, 'GET', '/v2/version');
    assert.equal(r.status, 200, r.text);
    assert.equal(typeof r.body.version, 'string');
    const plain = await fetch(daemon.url.replace('https:', 'http:') + '/v2/version').then((res) => res.status, (err: Error) => err.message);
    assert.notEqual(plain, 200);
  });

  it('forwards calls to its own local compute over HTTPS (the controller pins its own certificate)', async () => {
    const r = await httpsCall(daemon.url, ca, 'GET', '/v2/computes/local/ports');
    assert.equal(r.status, 200, r.text);
    const local = await httpsCall(daemon.url, ca, 'GET', '/v2/computes/local');
    assert.equal(local.body.protocol, 'https');
  });

  it('the CLI client refuses it without trust, and accepts it with the CA file or the pinned fingerprint', async () => {
    await assert.rejects(createApiClient({ url: daemon.url, retries: 0 }).get('version'),
      (err: Error) => err instanceof UntrustedServerError && /not signed by a trusted CA/.test(err.message) && /--ca-file/.test(err.message));
    assert.equal(typeof (await createApiClient({ url: daemon.url, trust: { caFile: certs.caCert } }).get<any>('version')).version, 'string');
    assert.equal(typeof (await createApiClient({ url: daemon.url, trust: { fingerprint: certs.leafFingerprint } }).get<any>('version')).version, 'string');
    await assert.rejects(createApiClient({ url: daemon.url, retries: 0, trust: { fingerprint: certs.selfFingerprint } }).get('version'),
      (err: Error) => err instanceof UntrustedServerError && err.message.includes(`fingerprint ${certs.leafFingerprint}, not the pinned ${certs.selfFingerprint}`));
  });

  it('streams (pcap, archives, images) verify the certificate the same way', async () => {
    const ok = await streamedRequest({ url: daemon.url, trust: { fingerprint: certs.leafFingerprint } }, 'GET', 'version');
    assert.equal(JSON.parse(await readText(ok)).version.length > 0, true);
    await assert.rejects(streamedRequest({ url: daemon.url }, 'GET', 'version'), UntrustedServerError);
    await assert.rejects(streamedRequest({ url: daemon.url, trust: { fingerprint: certs.selfFingerprint } }, 'GET', 'version'), /not the pinned/);
  });

  it('serves notifications over WSS to a client that trusts it, and not to one that does not', async () => {
    const stream = await openNotifications({ url: daemon.url, trust: { caFile: certs.caCert } }, 'notifications/ws');
    try {
      const created = httpsCall(daemon.url, ca, 'POST', '/v2/projects', { name: 'over-wss' });
      for await (const message of stream.messages()) {
        if (message.action === 'project.created' && message.event.name === 'over-wss') break;
      }
      assert.equal((await created).status, 201);
    } finally {
      stream.close();
    }
    const pinned = await openNotifications({ url: daemon.url, trust: { fingerprint: certs.leafFingerprint } }, 'notifications/ws');
    pinned.close();
    await assert.rejects(openNotifications({ url: daemon.url }, 'notifications/ws'), UntrustedServerError);
    await assert.rejects(openNotifications({ url: daemon.url, trust: { fingerprint: certs.selfFingerprint } }, 'notifications/ws'), /not the pinned/);
  });
});

describe('a pinned fingerprint that does not match', () => {
  let certs: TestCerts;
  let server: TlsServer;
  let received = 0;

  before(async () => {
    certs = makeTestCerts();
    server = createTlsServer({ cert: readFileSync(certs.otherCert), key: readFileSync(certs.otherKey) }, (socket) => {
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    certs?.remove();
  });

  it('fails before a byte of the request (credentials included) reaches the server', async () => {
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pinned = { fingerprint: certs.selfFingerprint };
    await assert.rejects(createApiClient({ url, user: 'admin', password: 'secret', retries: 0, trust: pinned }).post('projects', { name: 'x' }), UntrustedServerError);
    await assert.rejects(streamedRequest({ url, user: 'admin', password: 'secret', trust: pinned }, 'GET', 'version'), UntrustedServerError);
    await assert.rejects(openNotifications({ url, user: 'admin', password: 'secret', trust: pinned }, 'notifications/ws'), UntrustedServerError);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(received, 0, 'the server received application data');
  });
});

describe('listening beyond loopback', () => {
  it('is refused without auth, on 0.0.0.0 and on ::, saying how to allow it', async () => {
    for (const host of ['0.0.0.0', '::']) {
      await assert.rejects(startTestDaemon({ flags: { host } }), (err: Error) => {
        assert.match(err.message, new RegExp(`refusing to listen on ${host.replace(/\./g, '\\.')} without authentication: give --auth-user .* or --insecure-no-auth`));
        return true;
      });
    }
  });

  it('starts with --insecure-no-auth, and warns in the log', async () => {
    const daemon = await startTestDaemon({ flags: { host: '0.0.0.0', insecureNoAuth: true } });
    try {
      assert.match(daemon.log(), /WARN +--insecure-no-auth: listening on 0\.0\.0\.0 without authentication/);
      const r = await fetch(`http://127.0.0.1:${daemon.port}/v2/version`);
      assert.equal(r.status, 200);
    } finally {
      await daemon.stop();
      removeHome(daemon.home);
    }
  });

  it('starts with auth, and warns that without TLS the password crosses the network in clear text', async () => {
    const daemon = await startTestDaemon({ flags: { host: '0.0.0.0', authUser: 'admin' }, env: { EMUCTL_AUTH_PASSWORD: 'secret' } });
    try {
      assert.match(daemon.log(), /WARN +listening on 0\.0\.0\.0 without TLS: basic-auth passwords .* clear text/);
      assert.doesNotMatch(daemon.log(), /insecure-no-auth/);
      assert.equal((await fetch(`http://127.0.0.1:${daemon.port}/v2/version`)).status, 401);
    } finally {
      await daemon.stop();
      removeHome(daemon.home);
    }
  });
});
