import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

function listen(server: Server | HttpServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

describe('computes registry and the forward route', () => {
  let controller: TestDaemon;
  let compute: TestDaemon;
  let secured: TestDaemon;
  let hanging: Server;
  let failing: HttpServer;
  const sockets: Socket[] = [];
  let computeId: string;
  const holdFile = join(mkdtempSync(join(tmpdir(), 'emuctl-forward-hold-')), 'failpoints');

  before(async () => {
    controller = await startTestDaemon({ env: { EMUCTL_FORWARD_TIMEOUT_MS: '1500' } });
    writeFileSync(holdFile, '');
    compute = await startTestDaemon({ flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '30400-30449', EMUCTL_FAILPOINTS_FILE: holdFile } });
    secured = await startTestDaemon({ flags: { role: 'compute' }, env: { EMUCTL_AUTH_USER: 'lab', EMUCTL_AUTH_PASSWORD: 'pw' } });
    hanging = createServer((socket) => sockets.push(socket));
    failing = createHttpServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'disk on fire', status: 500 }));
    });
    await listen(hanging);
    await listen(failing);
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    hanging.close();
    failing.close();
    for (const d of [controller, compute, secured]) {
      await d.stop();
      removeHome(d.home);
    }
    rmSync(dirname(holdFile), { recursive: true, force: true });
  });

  it('a compute-only daemon serves /v2/version and /v2/compute, not the controller', async () => {
    assert.equal((await compute.api('GET', '/v2/version')).status, 200);
    assert.equal((await compute.api('GET', '/v2/compute/capabilities')).status, 200);
    assert.equal((await compute.api('GET', '/v2/projects')).status, 404);
    const caps = (await compute.api('GET', '/v2/compute/capabilities')).body;
    assert.deepEqual(Object.keys(caps).sort(), ['node_types', 'platform', 'version'], 'GNS3 2.2 controllers refuse any other key');
    assert.match(caps.version, /^2\.2\.\d+$/, 'a GNS3 2.2 version, which GNS3 controllers accept');
    assert.ok(caps.node_types.includes('ethernet_switch'));
  });

  it('registers a compute: 201, connected, never the password', async () => {
    const r = await controller.api('POST', '/v2/computes', { name: 'remote1', protocol: 'http', host: '127.0.0.1', port: compute.port, user: 'x', password: 'hunter2' });
    assert.equal(r.status, 201, r.text);
    computeId = r.body.compute_id;
    for (const f of ['compute_id', 'name', 'protocol', 'host', 'port', 'user', 'connected', 'cpu_usage_percent', 'memory_usage_percent', 'last_error', 'capabilities']) assert.ok(f in r.body, f);
    assert.equal(r.body.connected, true);
    assert.ok(!r.text.includes('hunter2'));
    const list = await controller.api('GET', '/v2/computes');
    assert.ok(!list.text.includes('hunter2'));
    assert.equal(list.body.length, 2);
    const file = `${controller.home}/state/computes-0.json`;
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it('validates and 404s', async () => {
    assert.equal((await controller.api('POST', '/v2/computes', { host: '127.0.0.1' })).status, 400);
    assert.equal((await controller.api('POST', '/v2/computes', { host: '127.0.0.1', port: 99999 })).status, 400);
    assert.equal((await controller.api('POST', '/v2/computes', { host: '127.0.0.1', port: 1, protocol: 'gopher' })).status, 400);
    assert.equal((await controller.api('GET', '/v2/computes/nope')).status, 404);
    assert.equal((await controller.api('DELETE', '/v2/computes/nope')).status, 404);
    assert.equal((await controller.api('GET', '/v2/computes/nope/network/interfaces')).status, 404);
    assert.equal((await controller.api('DELETE', '/v2/computes/local')).status, 409);
  });

  it('forwards GET, POST and PUT with multi-segment actions, the query string and the body', async () => {
    const ifaces = await controller.api('GET', `/v2/computes/${computeId}/network/interfaces`);
    assert.equal(ifaces.status, 200);
    assert.equal(ifaces.headers.get('x-route'), '/v2/computes/{compute_id}/{emulator}/{action:.+}');
    // The compute's own answer, forwarded as it is (it never offers lo: a cloud may not use it).
    assert.deepEqual(ifaces.body, (await compute.api('GET', '/v2/compute/network/interfaces')).body);
    assert.ok(ifaces.body.length > 0 && !ifaces.body.some((i: { name: string }) => i.name === 'lo'));
    const projectId = randomUUID();
    // POST /v2/compute/projects is not reachable through {emulator}/{action} (one segment); create it directly.
    assert.equal((await compute.api('POST', '/v2/compute/projects', { project_id: projectId })).status, 201);
    const port = await controller.api('POST', `/v2/computes/${computeId}/projects/${projectId}/ports/udp`, {});
    assert.equal(port.status, 200, 'a success is a 200, whatever 2xx the compute gave (GNS3 and the seed say so)');
    assert.ok(port.body.udp_port >= 30400 && port.body.udp_port <= 30449);
    const viaQuery = await controller.api('POST', `/v2/computes/${computeId}/projects/${projectId}/ethernet_switch/nodes?name=FromQuery`, {});
    assert.equal(viaQuery.status, 200, viaQuery.text);
    assert.equal(viaQuery.body.name, 'FromQuery', 'query string kept');
    const renamed = await controller.api('PUT', `/v2/computes/${computeId}/projects/${projectId}/ethernet_switch/nodes/${viaQuery.body.node_id}`, { name: 'Renamed' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Renamed');
    const local = await controller.api('GET', '/v2/computes/local/network/ports');
    assert.equal(local.status, 200);
    assert.ok('udp_port_range' in local.body);
    assert.equal((await controller.api('GET', `/v2/computes/${computeId}/ports`)).status, 200);
    const images = await controller.api('GET', `/v2/computes/${computeId}/vpcs/images`);
    assert.equal(images.status, 200);
    assert.deepEqual(images.body, [], 'VPCS needs no image');
    assert.equal((await controller.api('GET', `/v2/computes/${computeId}/iou/images`)).status, 404, 'an emulator the compute lacks');
  });

  it("passes the compute's own error status and message, naming the compute", async () => {
    const r = await controller.api('POST', `/v2/computes/${computeId}/projects/${randomUUID()}/ports/udp`, {});
    assert.equal(r.status, 404);
    assert.match(r.body.message, /remote1/);
    assert.match(r.body.message, /doesn't exist/);
    const f = await controller.api('POST', '/v2/computes', { name: 'failing', host: '127.0.0.1', port: (failing.address() as { port: number }).port });
    // Its failed check made it known disconnected: a forward fails at once, saying what it answered.
    const e = await controller.api('GET', `/v2/computes/${f.body.compute_id}/network/interfaces`);
    assert.equal(e.status, 503);
    assert.match(e.body.message, /failing .*not connected: .*500: disk on fire/);
  });

  it('a compute that is down: connected false with last_error, and a forward to it a 503 at once naming it and why', async () => {
    const closed = createServer();
    const port = await listen(closed);
    closed.close();
    const r = await controller.api('POST', '/v2/computes', { name: 'down', host: '127.0.0.1', port });
    assert.equal(r.status, 201);
    assert.equal(r.body.connected, false);
    assert.match(r.body.last_error, /ECONNREFUSED/);
    const f = await controller.api('GET', `/v2/computes/${r.body.compute_id}/network/interfaces`);
    assert.equal(f.status, 503, f.text);
    assert.match(f.body.message, new RegExp(`^compute down \\(${r.body.compute_id}\\) is not connected: .*unreachable.*ECONNREFUSED`));
  });

  it('a compute that never answers its check: connected false, and a forward to it a 503 at once', async () => {
    const r = await controller.api('POST', '/v2/computes', { name: 'hangs', host: '127.0.0.1', port: (hanging.address() as { port: number }).port });
    assert.equal(r.body.connected, false);
    assert.match(r.body.last_error, /did not answer/);
    const started = Date.now();
    const f = await controller.api('GET', `/v2/computes/${r.body.compute_id}/network/interfaces`);
    assert.equal(f.status, 503, f.text);
    assert.match(f.body.message, /^compute hangs .*not connected: .*did not answer/);
    assert.ok(Date.now() - started < 1400, 'no wait for the forward timeout');
  });

  it('a connected compute that hangs on the call: 504 within the forward timeout, and the controller answers meanwhile', async () => {
    writeFileSync(holdFile, 'compute.request.hold');
    try {
      const started = Date.now();
      const pending = controller.api('GET', `/v2/computes/${computeId}/network/interfaces`).then((answer) => ({ answer, took: Date.now() - started }));
      const version = controller.api('GET', '/v2/version');
      assert.equal(await Promise.race([version.then(() => 'version'), pending.then(() => 'forward')]), 'version', 'the controller answers others while the forward waits');
      assert.equal((await version).status, 200);
      const { answer: f, took } = await pending;
      assert.equal(f.status, 504, f.text);
      assert.match(f.body.message, /remote1.*did not answer/);
      assert.ok(took >= 1400, `the forward timeout (1.5 s) is honoured: ${took} ms`);
    } finally {
      writeFileSync(holdFile, '');
    }
  });

  it('uses the compute credentials; with a wrong password it is not connected (503 saying its 401) until fixed', async () => {
    const good = await controller.api('POST', '/v2/computes', { name: 'secured', host: '127.0.0.1', port: secured.port, user: 'lab', password: 'pw' });
    assert.equal(good.body.connected, true);
    assert.equal((await controller.api('GET', `/v2/computes/${good.body.compute_id}/network/interfaces`)).status, 200);
    const bad = await controller.api('POST', '/v2/computes', { name: 'secured-bad', host: '127.0.0.1', port: secured.port, user: 'lab', password: 'nope' });
    assert.equal(bad.body.connected, false);
    assert.match(bad.body.last_error, /401/);
    const f = await controller.api('GET', `/v2/computes/${bad.body.compute_id}/network/interfaces`);
    assert.equal(f.status, 503, f.text);
    assert.match(f.body.message, /secured-bad .*not connected: .*401/);
    const fixed = await controller.api('PUT', `/v2/computes/${bad.body.compute_id}`, { password: 'pw' });
    assert.equal(fixed.status, 200);
    assert.equal(fixed.body.connected, true);
    assert.equal((await controller.api('GET', `/v2/computes/${bad.body.compute_id}/network/interfaces`)).status, 200);
  });

  it('computes survive a controller restart; removing one is a 204', async () => {
    const home = controller.home;
    await controller.stop();
    controller = await startTestDaemon({ home, env: { EMUCTL_FORWARD_TIMEOUT_MS: '1500' } });
    const list = (await controller.api('GET', '/v2/computes')).body;
    assert.ok(list.some((c: { compute_id: string }) => c.compute_id === computeId));
    assert.equal((await controller.api('DELETE', `/v2/computes/${computeId}`)).status, 204);
    assert.equal((await controller.api('GET', `/v2/computes/${computeId}`)).status, 404);
  });
});
