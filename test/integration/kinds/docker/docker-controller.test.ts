// The controller's side of docker nodes, as GNS3 2.2's controller does it: the body a remote compute
// gets (a GNS3 compute needs console_type) and the ports the node lists (ethN).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import yauzl from 'yauzl';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { testImage } from '../../../helpers/docker-images.js';
import { createNode, createProject } from '../../../helpers/lab.js';
import { rawZip } from '../../../helpers/raw-zip.js';
import { startWireLog, type WireLog } from '../../../helpers/wire-log.js';

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
    // The compute takes privileged nodes (as a GNS3 server does): only the controller's own check stands in the way.
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_CONSOLE_PORT_RANGE: '29020-29069', EMUCTL_UDP_PORT_RANGE: '29150-29199', EMUCTL_DOCKER_UNSAFE_CAPS: '1' } });
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

  it('the controller holds a remote compute\'s docker nodes to its own rules: privileged is a 400 without a call to the compute; one restored from a snapshot that says privileged does not start there (409)', async () => {
    const host = await testImage('host');
    const pid = await createProject(controller, 'remote-contained');
    const seen = wire.requests().length;
    const refused = await controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'X', node_type: 'docker', compute_id: remoteId, properties: { image: host, privileged: true } });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.message, /^privileged: .*docker_unsafe_caps/);
    assert.ok(!wire.requests().slice(seen).some((line) => line.includes('/docker/nodes')), wire.requests().slice(seen).join('\n'));

    // A snapshot keeps each node's compute: one whose topology was changed on disk to say privileged is restored onto the remote compute.
    const plain = await createNode(controller, pid, 'PRIV', 'docker', { compute_id: remoteId, properties: { image: host, start_command: 'sleep 100000' } });
    containers.push(plain.properties.container_id);
    const snapshot = await controller.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'base' });
    assert.equal(snapshot.status, 201, snapshot.text);
    const file = join((await controller.api('GET', `/v2/projects/${pid}`)).body.path, 'snapshots', readdirSync(join((await controller.api('GET', `/v2/projects/${pid}`)).body.path, 'snapshots'))[0]);
    const zip = await yauzl.fromBufferPromise(readFileSync(file));
    const entries: { name: string; data: Buffer }[] = [];
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
    }
    const project = entries.find((e) => e.name === 'project.gns3')!;
    const topology = JSON.parse(project.data.toString());
    topology.topology.nodes[0].properties.privileged = true;
    project.data = Buffer.from(JSON.stringify(topology));
    writeFileSync(file, rawZip(entries));
    const restored = await controller.api('POST', `/v2/projects/${pid}/snapshots/${snapshot.body.snapshot_id}/restore`, {});
    assert.equal(restored.status, 201, restored.text);
    const node = (await controller.api('GET', `/v2/projects/${pid}/nodes`)).body[0];
    assert.equal(node.compute_id, remoteId);
    assert.equal(node.properties.privileged, true, 'the permissive compute took it');
    if (node.properties.container_id) containers.push(node.properties.container_id);
    const before = wire.requests().length;
    const start = await controller.api('POST', `/v2/projects/${pid}/nodes/${node.node_id}/start`, {});
    assert.equal(start.status, 409, start.text);
    assert.match(start.body.message, /PRIV cannot start on compute .*privileged: /);
    assert.ok(!wire.requests().slice(before).some((line) => line.includes('/start')), 'the compute is not asked to start it');
    const removed = await controller.api('DELETE', `/v2/projects/${pid}`);
    assert.equal(removed.status, 204, `${removed.text}\n${controller.log().slice(-3000)}`);
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
