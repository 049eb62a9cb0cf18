import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { classifyConsoleStart, guardConsoleInput, MAX_INSPECTED_BYTES } from '../../../src/daemon/compute/console-guard.js';

const verdict = (text: string | Buffer) => classifyConsoleStart(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);

/** Feeds `parts` one after another, as packets, and gives the verdict after each. */
function verdicts(parts: string[]): string[] {
  let seen = Buffer.alloc(0);
  return parts.map((p) => {
    seen = Buffer.concat([seen, Buffer.from(p, 'latin1')]);
    return classifyConsoleStart(seen);
  });
}

const IAC_DO_ECHO = '\xff\xfd\x01';

describe('console guard: classifyConsoleStart', () => {
  it('a request line is HTTP, whatever the method and version', () => {
    for (const line of ['POST / HTTP/1.1\r\n', 'GET /x?y=1 HTTP/1.0\r\n', 'OPTIONS * HTTP/1.1\r\n', 'PUT /a HTTP/2\r\n', 'M-SEARCH * HTTP/1.1\r\n', 'PROPFIND /d HTTP/1.1\r\n']) {
      assert.equal(verdict(line), 'http', JSON.stringify(line));
    }
    assert.equal(verdict('POST / HTTP/'), 'http', 'decided as soon as "HTTP/" follows the target');
    assert.equal(verdict('GET /index.html\n'), 'http', "HTTP/0.9's request line, without a version");
  });

  it('a browser request as a page sends it is HTTP (the body never counts)', () => {
    const request = 'POST / HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nConnection: keep-alive\r\nContent-Length: 19\r\nOrigin: http://127.0.0.2:8080\r\n\r\n\n\ntouch /tmp/marker\n';
    assert.equal(verdict(request), 'http');
  });

  it('header lines a browser sends are HTTP, in any case', () => {
    for (const line of ['Host: 127.0.0.1:5000\r\n', 'host:x\n', 'User-Agent: Mozilla/5.0\r\n', 'Content-Type : text/plain\r\n', 'Sec-Fetch-Mode: no-cors\r\n', 'Origin: http://a']) {
      assert.equal(verdict(line), 'http', JSON.stringify(line));
    }
  });

  it('a request split across packets, however small, is held until it is HTTP, and no earlier packet passes', () => {
    const request = 'POST / HTTP/1.1\r\nHost: x\r\n\r\nbody';
    const byByte = verdicts(request.split(''));
    const decided = byByte.findIndex((v) => v !== 'undecided');
    assert.equal(byByte[decided], 'http');
    assert.equal(decided, 'POST / HTTP/'.length - 1, 'decided at the "/" of "HTTP/"');
    assert.deepEqual(verdicts(['PO', 'ST /a', 'bc HT', 'TP/1.1\r', '\n']), ['undecided', 'undecided', 'undecided', 'http', 'http']);
    assert.deepEqual(verdicts(['Ho', 'st', ': x\r\n']), ['undecided', 'undecided', 'http']);
  });

  it('telnet negotiation passes at once, and so does everything after it', () => {
    assert.equal(verdict(IAC_DO_ECHO), 'console');
    assert.equal(verdict(`${IAC_DO_ECHO}POST / HTTP/1.1\r\n`), 'console', 'a telnet client typed it: only the first bytes are looked at');
    assert.equal(verdict('\xff\xfb\x18\xff\xfb\x1f\xff\xfd\x03'), 'console');
  });

  it('plain keystrokes and Enter pass at the first byte that cannot start a request', () => {
    assert.equal(verdict('\r\0'), 'console', 'telnet Enter (CR NUL)');
    assert.equal(verdict('\r\n'), 'console');
    assert.equal(verdict('\n'), 'console');
    assert.equal(verdict('l'), 'console');
    assert.equal(verdict('?'), 'console');
    assert.equal(verdict('\x03'), 'console', 'Ctrl-C');
    assert.equal(verdict('\x1b[A'), 'console', 'an arrow key');
    assert.equal(verdict('show ip\r\n'), 'console');
    assert.equal(verdict(Buffer.from('é', 'utf8')), 'console');
    assert.deepEqual(verdicts(['h', 'o', 's', 't', 'n']), ['undecided', 'undecided', 'undecided', 'undecided', 'console'], '`hostname` passes at its n');
    assert.deepEqual(verdicts(['S', 'H', 'O', 'W', ' ', 'I', 'P', ' ', 'R']), ['undecided', 'undecided', 'undecided', 'undecided', 'undecided', 'undecided', 'undecided', 'undecided', 'console']);
    assert.equal(verdict('GET\r\0'), 'console', 'a word alone on its line');
    assert.equal(verdict('SHOW RUN\r\n'), 'console');
    assert.equal(verdict('ip 10.0.0.1/24 10.0.0.254\r\n'), 'console');
  });

  it('an endless first line shaped like a request line is HTTP once it passes the limit', () => {
    assert.equal(verdict(`POST /${'a'.repeat(MAX_INSPECTED_BYTES - 7)}`), 'undecided');
    assert.equal(verdict(`POST /${'a'.repeat(MAX_INSPECTED_BYTES)}`), 'http');
  });
});

/** A connected pair of sockets: the guarded server side and the client. */
async function pair(): Promise<{ server: Socket; client: Socket; close: () => void }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  const [server] = await accepted;
  await once(client, 'connect').catch(() => undefined);
  return { server, client, close: () => { client.destroy(); server.destroy(); listener.close(); } };
}

/** Polls `check` until it holds or `ms` pass (the machine may be loaded). */
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('console guard: guardConsoleInput', () => {
  it('forwards nothing of an HTTP client, disconnects it and logs one warning naming the peer', async () => {
    const { server, client, close } = await pair();
    const warnings: string[] = [];
    const forwarded: Buffer[] = [];
    try {
      guardConsoleInput(server, 'console of node R1 (port 5000)', { warn: (m) => warnings.push(m) }, (c) => forwarded.push(c));
      const closed = once(client, 'close');
      const port = client.localPort;
      client.on('error', () => undefined);
      client.write('POST / HTTP/1.1\r\n');
      client.write('Host: 127.0.0.1:5000\r\n\r\n\n\ntouch /tmp/x\n');
      await closed;
      assert.deepEqual(forwarded, []);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], new RegExp(`^console of node R1 \\(port 5000\\): dropped a connection from 127\\.0\\.0\\.1:${port} `));
    } finally {
      close();
    }
  });

  it('forwards a telnet client\'s bytes in order, the held first ones included', async () => {
    const { server, client, close } = await pair();
    const forwarded: Buffer[] = [];
    try {
      guardConsoleInput(server, 'c', { warn: () => assert.fail('no warning for a console client') }, (c) => forwarded.push(c));
      client.write('ho');
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(forwarded, [], 'held while it could still be "Host:"');
      client.write('stname R1\r\n');
      client.write(Buffer.from(`${IAC_DO_ECHO}POST / HTTP/1.1\r\n`, 'latin1'));
      const expected = `hostname R1\r\n${IAC_DO_ECHO}POST / HTTP/1.1\r\n`;
      await until(() => Buffer.concat(forwarded).toString('latin1') === expected);
    } finally {
      close();
    }
  });
});
