import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

const LIMIT = 1024 * 1024;

/** A raw connection: what the daemon sent so far, and a promise of its first complete answer (headers and Content-Length bytes of body). */
function rawClient(port: number): Promise<{ socket: Socket; answer: Promise<{ head: string; body: string; at: number }> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let data = '';
    const answer = new Promise<{ head: string; body: string; at: number }>((done, fail) => {
      socket.on('data', (chunk) => {
        data += chunk.toString('latin1');
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = data.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (data.length >= end + 4 + length) done({ head, body: data.slice(end + 4, end + 4 + length), at: Date.now() });
      });
      socket.once('close', () => fail(new Error(`closed without a complete answer: ${JSON.stringify(data)}`)));
    });
    answer.catch(() => {});
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, answer }));
    socket.once('error', reject);
  });
}

function assert413(answer: { head: string; body: string }): void {
  assert.match(answer.head, /^HTTP\/1\.1 413 /);
  assert.deepEqual(JSON.parse(answer.body), { message: `Request body is too large (the limit is ${LIMIT} bytes)`, status: 413 });
}

describe('request bodies over max_body_bytes are refused as soon as that is known', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon()));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('Content-Length: 50000000 on POST /v2/projects is a 413 at once, without waiting for the body (not a 408 after the request timeout)', { timeout: 60_000 }, async () => {
    const { socket, answer } = await rawClient(d.port);
    const sent = Date.now();
    socket.write('POST /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{"name": "');
    const got = await answer;
    assert413(got);
    assert.ok(got.at - sent < 5_000, `answered after ${got.at - sent} ms (the request timeout is 30 s)`);
    socket.destroy();
  });

  it('a chunked body is a 413 as soon as it passes the limit, while the client still holds the rest', { timeout: 60_000 }, async () => {
    const { socket, answer } = await rawClient(d.port);
    socket.write('POST /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n');
    const piece = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent <= LIMIT; sent += piece.length) socket.write(`${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`);
    const passed = Date.now();
    // No terminating chunk: the body never ends.
    const got = await answer;
    assert413(got);
    assert.ok(got.at - passed < 5_000, `answered ${got.at - passed} ms after the limit was passed`);
    socket.destroy();
  });

  it('a body within the limit still works, declared or chunked', async () => {
    const r = await d.api('POST', '/v2/projects', { name: `within-${Date.now()}` });
    assert.equal(r.status, 201, r.text);
    const chunked = await fetch(`${d.url}/v2/projects`, {
      method: 'POST',
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(JSON.stringify({ name: `chunked-${Date.now()}` }))), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 201, await chunked.text());
  });
});
