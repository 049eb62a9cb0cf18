import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const UDP = { EMUCTL_UDP_PORT_RANGE: '30450-30499' };

/** A raw TCP connection to the daemon, with when it closed and what the daemon sent. */
interface RawConnection {
  socket: Socket;
  opened: number;
  received: () => string;
  closed: Promise<number>;
}

function open(d: TestDaemon, first?: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect(d.port, '127.0.0.1');
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.once('connect', () => {
      if (first) socket.write(first);
      resolve({ socket, opened: Date.now(), received: () => data, closed });
    });
    socket.once('error', reject);
  });
}

/** GET a pcap stream; resolves with the response once its headers arrived. */
function pcap(d: TestDaemon, path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(`${d.url}${path}`, resolve).once('error', reject));
}

/** Reads a response to its end: the bytes and whether it ended cleanly (complete) or was cut. */
function readAll(res: IncomingMessage): Promise<{ body: Buffer; complete: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () => resolve({ body: Buffer.concat(chunks), complete: res.complete }));
    res.once('error', () => resolve({ body: Buffer.concat(chunks), complete: false }));
  });
}

/** A project with a switch linked to a hub, capturing on the link; returns the link's pcap path. */
async function capturingLink(d: TestDaemon): Promise<string> {
  const pid = await createProject(d, 'streams');
  const sw = await createNode(d, pid, 'SW', 'ethernet_switch');
  const hub = await createNode(d, pid, 'HUB', 'ethernet_hub');
  const link = await createLink(d, pid, [sw.node_id, 0], [hub.node_id, 0]);
  assert.equal((await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {})).status, 201);
  return `/v2/projects/${pid}/links/${link.link_id}/pcap`;
}

describe('slow connections and long-lived streams', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({
      env: { ...UDP, EMUCTL_MAX_CONNECTIONS: '20', EMUCTL_HEADERS_TIMEOUT_MS: '1000', EMUCTL_REQUEST_TIMEOUT_MS: '2000', EMUCTL_KEEP_ALIVE_TIMEOUT_MS: '500', EMUCTL_MAX_STREAMS: '2' },
    });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('slow-header connections fill the cap, are refused beyond it with one log line, and time out', { timeout: 60_000 }, async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => open(d, 'GET /v2/version HTTP/1.1\r\nHost: 127.0.0.1\r\n')));
    const refused = [];
    for (let i = 0; i < 5; i++) {
      const extra = await open(d, 'GET /v2/version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await extra.closed;
      refused.push(extra.received());
    }
    assert.deepEqual(refused, ['', '', '', '', ''], 'connections beyond the cap are closed without an answer');
    for (const c of slow) {
      const closedAt = await c.closed;
      assert.ok(closedAt - c.opened >= 900, `a slow client keeps its connection for the headers timeout (${closedAt - c.opened} ms)`);
      assert.match(c.received(), /^HTTP\/1\.1 408/, 'the daemon answers 408 and closes');
    }
    assert.equal((await d.api('GET', '/v2/version')).status, 200, 'real clients get through again');
    const lines = d.log().split('\n').filter((l) => l.includes('connection cap reached'));
    assert.equal(lines.length, 1, d.log());
    assert.match(lines[0], /WARN .*connection cap reached: 20 connections open \(max_connections\)/);
  });

  it('a request whose body trickles is cut after the request timeout', { timeout: 60_000 }, async () => {
    const c = await open(d, 'POST /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{');
    const closedAt = await c.closed;
    assert.ok(closedAt - c.opened >= 1900, `${closedAt - c.opened} ms`);
    assert.match(c.received(), /^HTTP\/1\.1 408/);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', { timeout: 60_000 }, async () => {
    const c = await open(d, 'GET /v2/version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const closedAt = await c.closed;
    assert.match(c.received(), /^HTTP\/1\.1 200/);
    assert.ok(closedAt - c.opened >= 450, `${closedAt - c.opened} ms`);
  });

  it('pcap streams outlive the request timeout, and are bounded in number (503 naming the limit)', { timeout: 60_000 }, async () => {
    const path = await capturingLink(d);
    const first = await pcap(d, path);
    const second = await pcap(d, path);
    assert.deepEqual([first.statusCode, second.statusCode], [200, 200]);
    const firstBody = readAll(first);
    const third = await d.api('GET', path);
    assert.equal(third.status, 503);
    assert.equal(third.body.message, 'Too many long-lived streams are open (the limit is 2): close one and retry');
    await new Promise((r) => setTimeout(r, 2500)); // longer than the request timeout
    assert.equal(first.destroyed || first.complete, false, 'the stream is still open after the request timeout');
    second.destroy();
    await new Promise<void>((resolve) => second.once('close', () => resolve()));
    let again: IncomingMessage | undefined;
    for (let i = 0; i < 50 && again?.statusCode !== 200; i++) {
      if (again) {
        again.resume();
        await new Promise((r) => setTimeout(r, 50)); // the slot frees once the daemon saw the client go
      }
      again = await pcap(d, path);
    }
    assert.equal(again!.statusCode, 200, 'a freed slot is usable again');
    again!.destroy();
    const [pid, linkId] = [path.split('/')[3], path.split('/')[5]];
    await d.api('POST', `/v2/projects/${pid}/links/${linkId}/stop_capture`, {});
    const { body, complete } = await firstBody;
    assert.ok(complete, 'a stopped capture ends the stream cleanly');
    assert.equal(body.readUInt32LE(0), 0xa1b2c3d4);
  });
});

describe('pcap stream whose source fails', () => {
  let d: TestDaemon;
  before(async () => (d = await startTestDaemon({ env: { ...UDP, EMUCTL_FAILPOINTS: 'pcap.follow.after-data' } })));
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('the response ends cleanly with what was sent (a valid pcap header), on the controller and the compute route', { timeout: 60_000 }, async () => {
    const path = await capturingLink(d);
    const res = await pcap(d, path);
    assert.equal(res.statusCode, 200);
    const { body, complete } = await readAll(res);
    assert.ok(complete, 'ended, not cut');
    assert.ok(body.length >= 24);
    assert.equal(body.readUInt32LE(0), 0xa1b2c3d4);
    // the daemon logs before it ends the response, but its stderr can reach the test after the response
    await d.waitForLog(/WARN +pcap stream \/v2\/projects\/.*\/pcap ended early: failpoint pcap\.follow\.after-data triggered/);
    const link = (await d.api('GET', path.replace(/\/pcap$/, ''))).body;
    const end = link.nodes[0];
    const compute = await pcap(d, `/v2/compute/projects/${link.project_id}/ethernet_switch/nodes/${end.node_id}/adapters/0/ports/${end.port_number}/pcap`);
    const direct = await readAll(compute);
    assert.ok(direct.complete);
    assert.equal(direct.body.readUInt32LE(0), 0xa1b2c3d4);
  });
});
