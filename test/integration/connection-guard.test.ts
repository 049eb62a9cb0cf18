import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

const HEADERS_TIMEOUT_MS = 6000;
const PER_ADDRESS = 250;
/** The attackers' loopback addresses; the honest client is 127.0.0.1. */
const ATTACKERS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];

/**
 * A slowloris connection as an attacker holds it: part of the headers, then nothing, and it never
 * closes its own side (allowHalfOpen), so only the daemon can free it.
 */
interface HalfHeader {
  socket: Socket;
  opened: number;
  /** When the daemon closed its side (undefined while it holds the connection). */
  endedAt?: number;
  /** Whether the daemon closed it without a byte of answer. */
  received: string;
}

function halfHeader(port: number, localAddress: string): Promise<HalfHeader> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress, allowHalfOpen: true });
    const c: HalfHeader = { socket, opened: Date.now(), received: '' };
    socket.on('data', (chunk) => (c.received += chunk.toString('latin1')));
    socket.on('end', () => (c.endedAt ??= Date.now()));
    socket.on('close', () => (c.endedAt ??= Date.now()));
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.write('GET /v2/version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      c.opened = Date.now();
      resolve(c);
    });
    socket.once('error', reject);
  });
}

/** GET /v2/version from `localAddress` on a fresh connection: the status and how long the answer took. */
function version(port: number, localAddress: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', localAddress, path: '/v2/version', agent: false, headers: { Connection: 'close' } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode!, ms: Date.now() - started }));
    });
    req.once('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.end();
  });
}

async function until(check: () => boolean, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('slowloris: half-header connections cannot lock clients out', () => {
  let d: TestDaemon;
  const held: HalfHeader[] = [];
  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), EMUCTL_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) } });
  });
  after(async () => {
    for (const c of held) c.socket.destroy();
    await d.stop();
    removeHome(d.home);
  });

  it('1,000 half-header connections from four addresses fill max_connections; another address is still answered within 1 s; one more from a full address is refused at once; all are closed after headers_timeout_ms', { timeout: 120_000 }, async (t) => {
    for (const address of ATTACKERS) held.push(...(await Promise.all(Array.from({ length: PER_ADDRESS }, () => halfHeader(d.port, address)))));
    assert.equal(held.length, 1000);
    const early = held.filter((c) => c.endedAt !== undefined);
    assert.ok(early.length <= 1, `${early.length} connections closed before their headers timeout`);

    const extra = await halfHeader(d.port, ATTACKERS[0]);
    await until(() => extra.endedAt !== undefined, 'the connection over max_connections_per_address to be closed', 5_000);
    assert.ok(extra.endedAt! - extra.opened < 2_000, `refused in ${extra.endedAt! - extra.opened} ms`);
    assert.equal(extra.received, '', 'refused without an answer');
    extra.socket.destroy();

    const honest = await version(d.port, '127.0.0.1');
    assert.equal(honest.status, 200);
    assert.ok(honest.ms < 1000, `answered in ${honest.ms} ms with 1,000 slowloris connections open`);
    t.diagnostic(`honest request answered in ${honest.ms} ms with 1,000 half-header connections open; the 251st from one address refused in ${extra.endedAt! - extra.opened} ms`);

    await until(() => held.every((c) => c.endedAt !== undefined), 'every half-header connection to be closed by the daemon', HEADERS_TIMEOUT_MS + 60_000);
    const closedEarly = held.filter((c) => c.endedAt! - c.opened < HEADERS_TIMEOUT_MS - 500);
    assert.ok(closedEarly.length <= 1, `${closedEarly.length} closed before headers_timeout_ms (one may make room for the honest client)`);
    // The daemon really let go (its count per address is down) although the attackers never closed their side.
    const again = await version(d.port, ATTACKERS[0]);
    assert.equal(again.status, 200, 'an attacker address is served again once its connections timed out');
    const log = d.log();
    assert.match(log, /WARN .*127\.0\.0\.2 has 250 connections open \(max_connections_per_address\); refusing more/, log.slice(-2000));
    assert.match(log, /WARN .*connection cap reached: 1000 connections open \(max_connections\); closed one from 127\.0\.0\.\d still waiting for its headers to admit 127\.0\.0\.1/, log.slice(-2000));
  });
});

describe('slowloris over TLS: the handshake and the headers share the deadline', () => {
  let d: TestDaemon;
  let certs: TestCerts;
  const TIMEOUT = 2000;
  before(async () => {
    certs = makeTestCerts();
    d = await startTestDaemon({ flags: { tlsCert: certs.leafCert, tlsKey: certs.leafKey }, env: { EMUCTL_HEADERS_TIMEOUT_MS: String(TIMEOUT), EMUCTL_MAX_CONNECTIONS_PER_ADDRESS: '3' } });
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
    certs?.remove();
  });

  it('a client that never starts the handshake, and one that sends half its headers, are closed after headers_timeout_ms; the per-address cap holds', { timeout: 60_000 }, async () => {
    const ca = readFileSync(certs.caCert);
    const silent = connect({ port: d.port, host: '127.0.0.1', allowHalfOpen: true });
    silent.on('error', () => {});
    const silentOpened = Date.now();
    const silentClosed = new Promise<number>((resolve) => silent.once('end', () => resolve(Date.now())).once('close', () => resolve(Date.now())));
    let answer = '';
    // allowHalfOpen: like the attacker, it never closes its side (Node's TLSSocket takes it; its type does not say so).
    const half = tlsConnect({ port: d.port, host: '127.0.0.1', ca, allowHalfOpen: true } as ConnectionOptions);
    half.on('error', () => {});
    half.on('data', (chunk) => (answer += chunk.toString('latin1')));
    await new Promise<void>((resolve) => half.once('secureConnect', () => resolve()));
    const halfOpened = Date.now();
    half.write('GET /v2/version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const halfClosed = new Promise<number>((resolve) => half.once('end', () => resolve(Date.now())).once('close', () => resolve(Date.now())));
    const third = connect({ port: d.port, host: '127.0.0.1', allowHalfOpen: true });
    third.on('error', () => {});
    await new Promise<void>((resolve) => third.once('connect', () => resolve()));
    // The fourth connection from 127.0.0.1 is over max_connections_per_address (3).
    const fourth = connect({ port: d.port, host: '127.0.0.1', allowHalfOpen: true });
    fourth.on('error', () => {});
    const fourthOpened = Date.now();
    const fourthClosed = await new Promise<number>((resolve) => fourth.once('end', () => resolve(Date.now())).once('close', () => resolve(Date.now())));
    assert.ok(fourthClosed - fourthOpened < 1500, `over the per-address cap: closed after ${fourthClosed - fourthOpened} ms`);
    const [s, h] = [await silentClosed, await halfClosed];
    assert.ok(s - silentOpened >= TIMEOUT - 200 && s - silentOpened < TIMEOUT + 20_000, `no handshake: closed after ${s - silentOpened} ms`);
    assert.ok(h - halfOpened >= TIMEOUT - 500 && h - halfOpened < TIMEOUT + 20_000, `half headers: closed after ${h - halfOpened} ms`);
    assert.match(answer, /^HTTP\/1\.1 408 /, 'the half-header client is answered 408 over TLS');
    for (const socket of [silent, half, third, fourth]) socket.destroy();
    const status = await new Promise<number>((resolve, reject) => {
      const retry = (left: number) => {
        const req = httpsRequest({ port: d.port, host: '127.0.0.1', path: '/v2/version', ca, agent: false }, (res) => (res.resume(), resolve(res.statusCode!)));
        req.once('error', (err) => (left > 0 ? setTimeout(() => retry(left - 1), 100) : reject(err)));
        req.end();
      };
      retry(50);
    });
    assert.equal(status, 200, 'an honest client is served once the slots are free');
  });
});
