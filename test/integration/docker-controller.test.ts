// The controller's side of docker nodes, as GNS3 2.2's controller does it: the body a remote compute
// gets (a GNS3 compute needs console_type) and the ports the node lists (ethN).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { createNode, createProject } from '../helpers/lab.js';
import { startWireLog, type WireLog } from '../helpers/wire-log.js';

const docker = new Docker();

describe('docker nodes through the controller, on a remote compute', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-docker-controller-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let wire: WireLog;
  let remoteId: string;
  const containers: string[] = [];

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller') });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_CONSOLE_PORT_RANGE: '25400-25449', EMUCTL_UDP_PORT_RANGE: '31400-31449' } });
    wire = await startWireLog(remote.port);
    const r = await controller.api('POST', '/v2/computes', { name: 'far', host: '127.0.0.1', port: wire.port });
    assert.equal(r.status, 201, r.text);
    remoteId = r.body.compute_id;
  });
  after(async () => {
    await controller?.stop();
    await wire?.close();
    await remote?.stop();
    for (const id of containers) await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
    removeHome(tmp);
  });

  it('a node made without a console type gets telnet, sent to the compute (a GNS3 2.2 compute refuses its own answer without one); its ports are eth0..ethN as in GNS3', async () => {
    const pid = await createProject(controller, 'docker-remote');
    const node = await createNode(controller, pid, 'R1', 'docker', { compute_id: remoteId, properties: { image: await testImage('host'), adapters: 3 } });
    containers.push(node.properties.container_id);
    assert.equal(node.console_type, 'telnet');
    const create = wire.text().split(`POST /v2/compute/projects/${pid}/docker/nodes HTTP/1.1`)[1];
    assert.ok(create, 'the compute got the create');
    assert.match(create.slice(create.indexOf('\r\n\r\n')), /"console_type":"telnet"/);
    assert.deepEqual(node.ports.map((p: { name: string; short_name: string; adapter_number: number }) => [p.name, p.short_name, p.adapter_number]), [['eth0', 'eth0', 0], ['eth1', 'eth1', 1], ['eth2', 'eth2', 2]]);
    const renamed = await controller.api('PUT', `/v2/projects/${pid}/nodes/${node.node_id}`, { custom_adapters: [{ adapter_number: 1, port_name: 'uplink' }] });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.body.ports.map((p: { name: string }) => p.name), ['eth0', 'uplink', 'eth2']);
  });

  it('exec on a node of a kind without it is a 409 from the controller, which does not call the compute (a GNS3 compute answers 404 to a route it lacks)', async () => {
    const pid = await createProject(controller, 'exec-refused');
    const pc = await createNode(controller, pid, 'PC1', 'vpcs', { compute_id: remoteId });
    const r = await controller.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/exec`, { command: ['ping', '127.0.0.1'] });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.message, 'node PC1 (vpcs) has no exec; use its console');
    assert.ok(!wire.requests().some((line) => line.includes('/exec')), wire.requests().join('\n'));
  });
});
