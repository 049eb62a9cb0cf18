// emuctl's project-wide counters: the compute's `GET /v2/compute/projects/{id}/stats` and the
// controller's `GET /v2/projects/{id}/traffic`, with real UDP frames through real hubs on the
// controller's own compute and on a remote emuctl compute.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { ethernetFrame, sleep, udpEndpoint, type UdpEndpoint } from '../helpers/udp.js';

const TIMEOUT = { timeout: 120_000 };
const STATS_ROUTE = 'GET /v2/compute/projects/{project_id}/stats';

describe('one request for the traffic of every link of a project', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-project-traffic-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let source: UdpEndpoint;
  /** The UDP port of H1's extra port, where the test's frames go in. */
  let inlet: number;
  let pid: string;
  const hubs: Record<string, any> = {};
  const links: Record<string, any> = {};

  const traffic = async () => {
    const r = await controller.api('GET', `/v2/projects/${pid}/traffic`);
    assert.equal(r.status, 200, r.text);
    return new Map<string, any>(r.body.map((t: any) => [t.link_id, t]));
  };
  const frames = (t: any) => t.framesIn + t.framesOut;
  const statsCalls = (d: TestDaemon) => d.log().split('\n').filter((l) => l.includes(STATS_ROUTE)).length;

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: { EMUCTL_UDP_PORT_RANGE: '24420-24449', EMUCTL_CONSOLE_PORT_RANGE: '28420-28429' } });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '24450-24479', EMUCTL_CONSOLE_PORT_RANGE: '28430-28439', EMUCTL_DEBUG: 'true' } });
    const r = await controller.api('POST', '/v2/computes', { name: 'remote', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    const remoteId = r.body.compute_id;
    pid = await createProject(controller, 'traffic-lab');
    // H1 - H2 on the controller's compute, H3 - H4 on the remote one: link a is local only, b crosses, c is remote only.
    hubs.h1 = await createNode(controller, pid, 'H1', 'ethernet_hub');
    hubs.h2 = await createNode(controller, pid, 'H2', 'ethernet_hub');
    hubs.h3 = await createNode(controller, pid, 'H3', 'ethernet_hub', { compute_id: remoteId });
    hubs.h4 = await createNode(controller, pid, 'H4', 'ethernet_hub', { compute_id: remoteId });
    links.a = await createLink(controller, pid, [hubs.h1.node_id, 0], [hubs.h2.node_id, 0]);
    links.b = await createLink(controller, pid, [hubs.h3.node_id, 0], [hubs.h2.node_id, 1]);
    links.c = await createLink(controller, pid, [hubs.h3.node_id, 1], [hubs.h4.node_id, 0]);
    // Frames come in on a free port of H1 from a UDP socket of the test; the hubs flood them along a, b and c.
    source = await udpEndpoint();
    const lport = (await controller.api('POST', `/v2/compute/projects/${pid}/ports/udp`, {})).body.udp_port;
    const nio = await controller.api('POST', `/v2/compute/projects/${pid}/ethernet_hub/nodes/${hubs.h1.node_id}/adapters/0/ports/7/nio`, { type: 'nio_udp', lport, rhost: '127.0.0.1', rport: source.port });
    assert.equal(nio.status, 201, nio.text);
    inlet = lport;
  });
  after(async () => {
    await source?.close();
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('gives the counters of each link, read on the local end when it has one, and asks the remote compute once', TIMEOUT, async () => {
    const before = statsCalls(remote);
    const t = await traffic();
    assert.deepEqual([...t.keys()].sort(), Object.values(links).map((l) => l.link_id).sort());
    assert.equal(t.get(links.b.link_id).node_id, hubs.h2.node_id, 'the crossing link is read on its local end');
    assert.deepEqual([t.get(links.b.link_id).adapter_number, t.get(links.b.link_id).port_number], [0, 1]);
    assert.ok([hubs.h3.node_id, hubs.h4.node_id].includes(t.get(links.c.link_id).node_id));
    for (const entry of t.values()) {
      for (const field of ['framesIn', 'framesOut', 'bytesIn', 'bytesOut', 'drops', 'errors', 'timestamp']) assert.equal(typeof entry[field], 'number', field);
      assert.ok(Math.abs(entry.timestamp - Date.now()) < 60_000);
    }
    // The access line comes once the answer is sent, through the daemon's output: wait for it, then for any other.
    for (let waited = 0; statsCalls(remote) === before && waited < 10_000; waited += 50) await sleep(50);
    await sleep(500);
    assert.equal(statsCalls(remote) - before, 1, 'one call to the remote compute for its two nodes');
    assert.doesNotMatch(remote.log(), /nodes\/\{node_id\}\/stats/);
  });

  it('the counters of every link grow when frames flow', TIMEOUT, async () => {
    const start = await traffic();
    const frame = ethernetFrame('ff:ff:ff:ff:ff:ff', '02:00:00:00:21:01');
    for (let i = 0; i < 20; i++) await source.send(frame, inlet);
    let now = start;
    for (let waited = 0; waited < 20_000; waited += 200) {
      now = await traffic();
      if (Object.values(links).every((l) => frames(now.get(l.link_id)) - frames(start.get(l.link_id)) >= 20)) break;
      await sleep(200);
    }
    for (const [name, link] of Object.entries(links)) {
      const grown = frames(now.get(link.link_id)) - frames(start.get(link.link_id));
      assert.ok(grown >= 20, `link ${name}: ${grown} frames more, expected 20`);
      assert.ok(now.get(link.link_id).bytesIn + now.get(link.link_id).bytesOut >= 20 * frame.length);
    }
    assert.ok(now.get(links.b.link_id).framesOut - start.get(links.b.link_id).framesOut >= 20, 'H2 sends the flood out towards H3');
  });

  it('the compute route gives each node\'s ports in one answer; 404 for an unknown project', TIMEOUT, async () => {
    const r = await remote.api('GET', `/v2/compute/projects/${pid}/stats`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.map((n: any) => n.node_id).sort(), [hubs.h3.node_id, hubs.h4.node_id].sort());
    const h3 = r.body.find((n: any) => n.node_id === hubs.h3.node_id);
    assert.equal(h3.node_type, 'ethernet_hub');
    const perNode = await remote.api('GET', `/v2/compute/projects/${pid}/ethernet_hub/nodes/${hubs.h3.node_id}/stats`);
    assert.deepEqual(h3.ports.map((p: any) => [p.adapter_number, p.port_number, p.name, p.nio?.type ?? null]), perNode.body.map((p: any) => [p.adapter_number, p.port_number, p.name, p.nio?.type ?? null]));
    assert.ok(h3.ports.find((p: any) => p.port_number === 0).framesIn >= 20);

    const unknown = await remote.api('GET', `/v2/compute/projects/${randomUUID()}/stats`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.body).sort(), ['message', 'status']);
  });

  it('404 for an unknown project; a closed one has no counters', TIMEOUT, async () => {
    const unknown = await controller.api('GET', `/v2/projects/${randomUUID()}/traffic`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.status, 404);
    assert.match(unknown.body.message, /doesn't exist/);
    const other = await createProject(controller, 'closed-traffic');
    assert.equal((await controller.api('POST', `/v2/projects/${other}/close`)).status, 204);
    const closed = await controller.api('GET', `/v2/projects/${other}/traffic`);
    assert.equal(closed.status, 200, closed.text);
    assert.deepEqual(closed.body, []);
  });

  it('a remote compute that answers 404 (as a GNS3 compute, which has no such route) contributes nothing', TIMEOUT, async () => {
    // The remote compute forgets the project behind the controller's back: its stats route answers 404.
    assert.equal((await remote.api('DELETE', `/v2/compute/projects/${pid}`)).status, 204);
    assert.equal((await remote.api('GET', `/v2/compute/projects/${pid}/stats`)).status, 404);
    const t = await traffic();
    assert.deepEqual([...t.keys()].sort(), [links.a.link_id, links.b.link_id].sort());
  });

  it('a remote compute that is down contributes nothing; the local links still answer', TIMEOUT, async () => {
    await remote.stop();
    const t = await traffic();
    assert.deepEqual([...t.keys()].sort(), [links.a.link_id, links.b.link_id].sort());
  });
});
