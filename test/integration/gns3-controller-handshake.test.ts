// What a GNS3 2.2 controller does when it adopts a compute (gns3server/controller/compute.py, read for
// the facts): GET /v2/compute/capabilities (the version's major.minor must be its own), then the
// websocket /v2/compute/notifications/ws with basic auth and aiohttp's heartbeat (a PING frame every
// 10 s, the connection dropped when no PONG comes within 5 s); node status reaches it only as
// node.updated on that socket. This test plays that controller against a real compute-only daemon.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { basicAuthHeader, isPing, openWebSocket, type StreamMessage } from '../helpers/notifications.js';
import { sleep } from '../helpers/udp.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20500-20549', EMUCTL_CONSOLE_PORT_RANGE: '20550-20574', EMUCTL_AUTH_USER: 'gns3', EMUCTL_AUTH_PASSWORD: 'pw' };
const AUTH = basicAuthHeader('gns3', 'pw');
/** aiohttp's ws_connect(heartbeat=10) as GNS3's controller opens the compute stream. */
const HEARTBEAT_MS = 10_000;

describe('a GNS3 controller adopting an emuctl compute', () => {
  let compute: TestDaemon;
  before(async () => (compute = await startTestDaemon({ flags: { role: 'compute' }, env: ENV })));
  after(async () => {
    await compute.stop();
    removeHome(compute.home);
  });

  it('capabilities: a 2.2 version and what the controller stores', async () => {
    const caps = await compute.api('GET', '/v2/compute/capabilities', undefined, AUTH);
    assert.equal(caps.status, 200);
    assert.match(caps.body.version, /^2\.2\.\d+$/);
    assert.ok(caps.body.node_types.includes('vpcs') && caps.body.node_types.includes('ethernet_switch'));
    assert.equal(typeof caps.body.platform, 'string');
  });

  it('the notification websocket: pings at once and every second, PONGs to the heartbeat, node.updated for nodes', async () => {
    const ws = await openWebSocket(compute.url, '/v2/compute/notifications/ws', AUTH);
    try {
      const pongs: number[] = [];
      ws.socket.on('pong', () => pongs.push(performance.now()));
      const first = await ws.next(() => true);
      assert.ok(isPing(first), JSON.stringify(first));

      const startedAt = performance.now();
      ws.socket.ping();
      while (pongs.length < 1) await sleep(20);
      assert.ok(pongs[0] - startedAt < HEARTBEAT_MS / 2, 'PONG within half the heartbeat');

      // The controller creates a project and a VPCS, starts and stops it, as it does for a lab.
      const projectId = randomUUID();
      assert.equal((await compute.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'adopted' }, AUTH)).status, 201);
      const node = await compute.api('POST', `/v2/compute/projects/${projectId}/vpcs/nodes`, { name: 'PC1', node_id: randomUUID() }, AUTH);
      assert.equal(node.status, 201, node.text);
      const path = `/v2/compute/projects/${projectId}/vpcs/nodes/${node.body.node_id}`;
      for (const action of ['start', 'stop'] as const) {
        // GNS3's compute answers a VPCS start with 200 and the node, a stop with 204.
        assert.equal((await compute.api('POST', `${path}/${action}`, {}, AUTH)).status, action === 'start' ? 200 : 204);
        const update: StreamMessage = await ws.next((m) => m.action === 'node.updated' && m.event.node_id === node.body.node_id);
        assert.equal(update.project_id, projectId, 'GNS3 routes the event by the message\'s project_id');
        assert.equal(update.event.status, action === 'start' ? 'started' : 'stopped');
        assert.deepEqual(update.event, (await compute.api('GET', path, undefined, AUTH)).body);
      }

      // A whole heartbeat period: the compute keeps pinging (a controller drops a stream that goes quiet), and PONGs again.
      const before = ws.messages.filter((m) => m.action === 'ping').length;
      while (performance.now() - startedAt < HEARTBEAT_MS) await sleep(100);
      ws.socket.ping();
      while (pongs.length < 2) await sleep(20);
      const pings = ws.messages.filter((m) => m.action === 'ping').length - before;
      assert.ok(pings >= 5, `${pings} pings from the compute during the heartbeat period`);
      assert.equal(ws.ended, false, 'the stream is still open');
      assert.equal((await compute.api('DELETE', path, undefined, AUTH)).status, 204);
      const deleted = await ws.next((m) => m.action === 'node.deleted');
      assert.deepEqual([deleted.event.node_id, deleted.project_id], [node.body.node_id, projectId], 'node.deleted, as GNS3 computes send it');
      assert.equal((await compute.api('DELETE', `/v2/compute/projects/${projectId}`, undefined, AUTH)).status, 204);
    } finally {
      ws.close();
    }
  });
});
