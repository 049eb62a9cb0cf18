import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { linksStartingWith } from '../helpers/host-network.js';

const ID = `${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
const TAP = `ehn${ID}t`;

describe('compute: nio_tap and nio_ethernet on a node port (GNS3 NIO schemas)', () => {
  let d: TestDaemon;
  let base: string;
  let hubId: string;
  const nioPath = (port: number) => `${base}/ethernet_hub/nodes/${hubId}/adapters/0/ports/${port}/nio`;

  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '30700-30799' } });
    const projectId = randomUUID();
    base = `/v2/compute/projects/${projectId}`;
    assert.equal((await d.api('POST', '/v2/compute/projects', { project_id: projectId, name: 'host-nio' })).status, 201);
    const hub = await d.api('POST', `${base}/ethernet_hub/nodes`, { name: 'Hub1' });
    assert.equal(hub.status, 201, hub.text);
    hubId = hub.body.node_id;
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('nio_tap makes the TAP, captures it, and removes it with the NIO', async () => {
    const r = await d.api('POST', nioPath(0), { type: 'nio_tap', tap_device: TAP });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body, { type: 'nio_tap', tap_device: TAP, filters: {}, suspend: false });
    assert.deepEqual(linksStartingWith(TAP), [TAP]);
    const capture = await d.api('POST', `${base}/ethernet_hub/nodes/${hubId}/adapters/0/ports/0/start_capture`, { capture_file_name: 'tap.pcap' });
    assert.equal(capture.status, 200, capture.text);
    assert.ok(existsSync(capture.body.pcap_file_path));
    const suspended = await d.api('PUT', nioPath(0), { type: 'nio_tap', tap_device: TAP, suspend: true });
    assert.equal(suspended.status, 201, suspended.text);
    assert.equal((await d.api('DELETE', nioPath(0))).status, 204);
    assert.deepEqual(linksStartingWith(TAP), []);
  });

  it('nio_ethernet on a missing interface is a 400 and leaves the port free; bad names are a 400', async () => {
    const r = await d.api('POST', nioPath(1), { type: 'nio_ethernet', ethernet_device: `ehn${ID}x` });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.message, /no such interface/);
    assert.equal((await d.api('POST', nioPath(1), { type: 'nio_null' })).status, 201, 'the port took no NIO from the failed call');
    for (const bad of [{ type: 'nio_tap', tap_device: 'a/b' }, { type: 'nio_tap', tap_device: 'x'.repeat(16) }, { type: 'nio_ethernet' }]) {
      const answer = await d.api('POST', nioPath(2), bad);
      assert.equal(answer.status, 400, `${JSON.stringify(bad)}: ${answer.text}`);
    }
  });
});
