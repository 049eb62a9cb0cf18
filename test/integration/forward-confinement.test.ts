// The forward route (/v2/computes/{compute_id}/{emulator}/{action}) reaches only /v2/compute/ on its
// target, whatever encoding a client tries. Requests are sent with node:http and a raw path: fetch
// would resolve dot segments before sending. The remote compute is a real daemon behind a TCP relay
// that keeps every byte the controller sent it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { startWireLog, type WireLog } from '../helpers/wire-log.js';

interface RawAnswer {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** One request whose path goes on the wire exactly as written. */
function rawCall(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** `{emulator}/{action}` tails that try to leave /v2/compute/ on the target. */
const ESCAPES = [
  'qemu/..%2f..%2fversion',
  'qemu/..%2F..%2Fversion',
  '%2e%2e/projects',
  '%2E%2E/projects',
  '%2e%2E/version',
  '../projects',
  './version',
  'qemu/../../version',
  'qemu/./../../version',
  'qemu/%2e%2e/%2e%2e/version',
  'qemu/%252e%252e/%252e%252e/version',
  '%252e%252e/projects',
  'qemu/..%5c..%5cversion',
  'qemu/..%5C..%5Cversion',
  'qemu/..\\..\\version',
  'qemu/..;/..;/version',
  '..;/projects',
  'qemu//version',
  'qemu/%c0%ae%c0%ae/%c0%ae%c0%ae/version',
  'qemu/%e0%80%ae%e0%80%ae/version',
  'qemu/images%00/x',
  'qemu/images%0d%0aX-Injected:%201/x',
  'qemu/%2fversion',
];

describe('the forward route stays under /v2/compute/ of its target', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-forward-confinement-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let wire: WireLog;
  let remoteId: string;

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: { EMUCTL_FORWARD_TIMEOUT_MS: '5000' } });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_AUTH_USER: 'lab', EMUCTL_AUTH_PASSWORD: 'stored-secret' } });
    wire = await startWireLog(remote.port);
    const r = await controller.api('POST', '/v2/computes', { name: 'far', host: '127.0.0.1', port: wire.port, user: 'lab', password: 'stored-secret' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.connected, true, r.text);
    remoteId = r.body.compute_id;
  });
  after(async () => {
    await controller?.stop();
    await wire?.close();
    await remote?.stop();
    removeHome(tmp);
  });

  it('every escape is a 400 JSON naming the problem, on the local compute and on a remote one, whatever the method', async () => {
    const wrong: string[] = [];
    for (const id of ['local', remoteId]) {
      for (const tail of ESCAPES) {
        for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
          const withBody = method === 'POST' || method === 'PUT';
          const r = await rawCall(controller.port, method, `/v2/computes/${id}/${tail}`, withBody ? { 'content-type': 'application/json' } : {}, withBody ? '{}' : undefined);
          let body: { status?: unknown; message?: unknown } = {};
          try {
            body = JSON.parse(r.text);
          } catch {
            // reported below
          }
          const json = /^application\/json/.test(r.contentType ?? '') && body.status === 400 && typeof body.message === 'string';
          if (r.status !== 400 || !json) wrong.push(`${method} ${tail} on ${id === 'local' ? 'local' : 'remote'}: ${r.status} ${r.text.slice(0, 120)}`);
        }
      }
    }
    assert.deepEqual(wrong, [], `not a 400 JSON:\n${wrong.join('\n')}`);
    // Without an emulator and an action the URL is no forward (GNS3's template needs both): a JSON 404, nothing sent.
    for (const tail of ['..', '.', '%2e%2e', '%2e', '/version']) {
      const r = await rawCall(controller.port, 'GET', `/v2/computes/${remoteId}/${tail}`);
      assert.equal(r.status, 404, `${tail}: ${r.text}`);
      assert.equal(JSON.parse(r.text).status, 404);
    }
  });

  it('no escape reached the remote compute: every request it got is under /v2/compute/ without a dot segment or an encoded separator', () => {
    const requests = wire.requests();
    assert.ok(requests.some((r) => r.startsWith('GET /v2/compute/capabilities')), `the relay sees the controller's calls: ${requests}`);
    for (const line of requests) {
      const path = line.split(' ')[1].split('?')[0];
      assert.ok(path.startsWith('/v2/compute/'), `a request left /v2/compute/: ${line}`);
      assert.ok(!path.split('/').some((s) => /^(\.|%2e)+;?$/i.test(s)), `a dot segment reached the compute: ${line}`);
      assert.ok(!/%2f|%5c|\\|%25|%0d|%0a|%00/i.test(path), `an encoded separator or a double encoding reached the compute: ${line}`);
    }
    assert.ok(!/X-Injected/i.test(wire.text()), 'no header was injected');
  });

  it('a legitimate forward still works, with the stored credentials and none of the client headers', async () => {
    const r = await rawCall(controller.port, 'GET', `/v2/computes/${remoteId}/network/interfaces?probe=1%0d%0aX-Smuggled:%201`, {
      authorization: basic('client', 'client-secret'),
      cookie: 'session=client-cookie',
      'x-forwarded-for': '203.0.113.9',
    });
    assert.equal(r.status, 200, r.text);
    const listed = JSON.parse(r.text) as { name: string }[];
    assert.ok(listed.length > 0 && listed.every((i) => typeof i.name === 'string' && i.name !== 'lo'), `the compute's interfaces (never lo): ${r.text}`);
    const sent = wire.text();
    const call = sent.slice(sent.lastIndexOf('GET /v2/compute/network/interfaces'));
    const head = call.slice(0, call.indexOf('\r\n\r\n'));
    assert.match(head, /^GET \/v2\/compute\/network\/interfaces\?probe=1%0d%0aX-Smuggled:%201 HTTP\/1\.1\r\n/, 'the query string goes through as it came, still encoded');
    assert.ok(head.includes(`\r\nauthorization: ${basic('lab', 'stored-secret')}`), `the stored credentials are used: ${head}`);
    assert.ok(!sent.includes(basic('client', 'client-secret')), 'the client credentials never reach the compute');
    assert.ok(!sent.includes('client-cookie') && !sent.includes('203.0.113.9'), 'nor its cookie or other headers');
    assert.match(head, new RegExp(`\\r\\nhost: 127\\.0\\.0\\.1:${wire.port}`, 'i'), 'Host names the compute');
    assert.ok(!/^X-Smuggled/im.test(sent), 'no smuggled header line');
  });

  it('endless streams (a capture, notifications, websockets) are refused at once, not buffered until the time-out', async () => {
    const auth = { authorization: basic('lab', 'stored-secret') };
    const projectId = randomUUID();
    assert.equal((await remote.api('POST', '/v2/compute/projects', { project_id: projectId }, auth)).status, 201);
    const sw = await remote.api('POST', `/v2/compute/projects/${projectId}/ethernet_switch/nodes`, { name: 'SW' }, auth);
    assert.equal(sw.status, 201, sw.text);
    const port = `projects/${projectId}/ethernet_switch/nodes/${sw.body.node_id}/adapters/0/ports/0`;
    const lport = (await remote.api('POST', `/v2/compute/projects/${projectId}/ports/udp`, {}, auth)).body.udp_port;
    const nio = await remote.api('POST', `/v2/compute/${port}/nio`, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: lport + 1 }, auth);
    assert.equal(nio.status, 201, nio.text);
    const capture = await remote.api('POST', `/v2/compute/${port}/start_capture`, { capture_file_name: 'p0.pcap' }, auth);
    assert.equal(capture.status, 200, capture.text);
    for (const tail of [`${port}/pcap`, 'notifications/ws', `projects/${projectId}/notifications`, `projects/${projectId}/vpcs/nodes/${randomUUID()}/console/ws`]) {
      const started = Date.now();
      const r = await rawCall(controller.port, 'GET', `/v2/computes/${remoteId}/${tail}`);
      assert.equal(r.status, 400, `${tail}: ${r.text}`);
      assert.match(JSON.parse(r.text).message, /not forwarded/);
      assert.ok(Date.now() - started < 4000, `${tail} refused at once (${Date.now() - started} ms)`);
    }
    assert.equal((await remote.api('POST', `/v2/compute/${port}/stop_capture`, {}, auth)).status, 204);
  });

  it('the compute registry routes themselves are unaffected, and a trailing slash on a forward is still one call', async () => {
    assert.equal((await rawCall(controller.port, 'GET', `/v2/computes/${remoteId}`)).status, 200);
    const trailing = await rawCall(controller.port, 'GET', `/v2/computes/${remoteId}/network/interfaces/`);
    assert.equal(trailing.status, 200, trailing.text);
    const local = await rawCall(controller.port, 'GET', '/v2/computes/local/network/interfaces');
    assert.equal(local.status, 200, local.text);
    // An absolute-form request target (as sent to a proxy) names the same forward.
    const absolute = await rawCall(controller.port, 'GET', `http://127.0.0.1:${controller.port}/v2/computes/${remoteId}/network/interfaces?x=1`);
    assert.equal(absolute.status, 200, absolute.text);
    const escape = await rawCall(controller.port, 'GET', `http://127.0.0.1:${controller.port}/v2/computes/${remoteId}/qemu/..%2f..%2fversion`);
    assert.equal(escape.status, 400, escape.text);
  });
});
