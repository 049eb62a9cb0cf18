import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

// The remote compute lets QEMU options through (qemu_unsafe_options), as a GNS3 server does: what
// refuses them below is the controller's own check.
describe('the controller checks what would reach a remote compute\'s command lines', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-remote-command-line-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let computeId: string;
  let projectId: string;

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: { EMUCTL_UDP_PORT_RANGE: '23300-23349', EMUCTL_CONSOLE_PORT_RANGE: '27790-27794' } });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '23350-23399', EMUCTL_CONSOLE_PORT_RANGE: '27795-27799', EMUCTL_QEMU_UNSAFE_OPTIONS: 'true' } });
    const r = await controller.api('POST', '/v2/computes', { name: 'remote', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    computeId = r.body.compute_id;
    projectId = (await controller.api('POST', '/v2/projects', { name: 'remote-lab' })).body.project_id;
  });
  after(async () => {
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('refuses a QEMU node with a harmful option for a remote compute (400 naming it), at create and at update', async () => {
    const created = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'R1', node_type: 'qemu', compute_id: computeId, properties: { options: '-cpu max -pidfile /tmp/x' } });
    assert.equal(created.status, 400, created.text);
    assert.match(created.body.message, /-pidfile/);
    const absolute = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'R1', node_type: 'qemu', compute_id: computeId, properties: { options: '-initrd /etc/shadow' } });
    assert.equal(absolute.status, 400, absolute.text);

    const ok = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'R2', node_type: 'qemu', compute_id: computeId, properties: { options: '-cpu max' } });
    assert.equal(ok.status, 201, ok.text);
    const updated = await controller.api('PUT', `/v2/projects/${projectId}/nodes/${ok.body.node_id}`, { properties: { options: '-chardev file,id=c,path=/tmp/x' } });
    assert.equal(updated.status, 400, updated.text);
    assert.match(updated.body.message, /-chardev/);
    const node = (await controller.api('GET', `/v2/projects/${projectId}/nodes/${ok.body.node_id}`)).body;
    assert.equal(node.properties.options, '-cpu max', 'the node keeps its options');

    // The same option straight to that compute passes: the check above is the controller's.
    const pid = randomUUID();
    assert.equal((await remote.api('POST', '/v2/compute/projects', { project_id: pid, name: 'direct' })).status, 201);
    const direct = await remote.api('POST', `/v2/compute/projects/${pid}/qemu/nodes`, { name: 'R9', options: '-pidfile /tmp/x' });
    assert.equal(direct.status, 201, direct.text);
    assert.equal((await remote.api('DELETE', `/v2/compute/projects/${pid}`)).status, 204);
  });

  it('refuses a VPCS startup script with a host command for a remote compute', async () => {
    const created = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'PC1', node_type: 'vpcs', compute_id: computeId, properties: { startup_script: '! id\n' } });
    assert.equal(created.status, 400, created.text);
    assert.match(created.body.message, /! id/);
  });
});
