// Node files, duplicates, archives and snapshots when nodes run on a remote compute (an emuctl
// daemon in the compute role): the controller reaches their files through the GNS3 compute API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createNode, createProject } from '../helpers/lab.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '22670-22694', EMUCTL_CONSOLE_PORT_RANGE: '27620-27629' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '22695-22719', EMUCTL_CONSOLE_PORT_RANGE: '27630-27639' };

describe('node files, duplicates, archives and snapshots with a remote compute', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-remote-archives-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let computeId: string;
  let pid: string;
  let pc: any;

  const nodeFile = (projectId: string, nodeId: string, method = 'GET', body?: string) =>
    fetch(`${controller.url}/v2/projects/${projectId}/nodes/${nodeId}/files/startup.vpc`, { method, body });

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: CONTROLLER_ENV });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: COMPUTE_ENV });
    const r = await controller.api('POST', '/v2/computes', { name: 'remote', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    computeId = r.body.compute_id;
    pid = await createProject(controller, 'spread');
    pc = await createNode(controller, pid, 'PC1', 'vpcs', { compute_id: computeId });
  });
  after(async () => {
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it("reads and writes a remote VPCS's files through the controller", async () => {
    assert.equal(pc.node_directory, join(tmp, 'compute', 'projects', pid, 'project-files', 'vpcs', pc.node_id), 'the directory is on the compute');
    assert.match(await (await nodeFile(pid, pc.node_id)).text(), /^set pcname PC1$/m);
    assert.equal((await nodeFile(pid, pc.node_id, 'POST', 'set pcname PC1\nip 10.4.4.1/24\n')).status, 201);
    const onCompute = await fetch(`${remote.url}/v2/compute/projects/${pid}/files/project-files/vpcs/${pc.node_id}/startup.vpc`);
    assert.equal(await onCompute.text(), 'set pcname PC1\nip 10.4.4.1/24\n');
    const listed = await remote.api('GET', `/v2/compute/projects/${pid}/files`);
    assert.ok(listed.body.some((f: any) => f.path === `project-files/vpcs/${pc.node_id}/startup.vpc` && /^[0-9a-f]{32}$/.test(f.md5sum)));
  });

  it('duplicates a remote VPCS on its compute, files and all', async () => {
    const copy = await controller.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/duplicate`, { x: 50, y: 0 });
    assert.equal(copy.status, 201, copy.text);
    assert.equal(copy.body.compute_id, computeId);
    assert.equal(await (await nodeFile(pid, copy.body.node_id)).text(), 'set pcname PC2\nip 10.4.4.1/24\n');
    await controller.api('DELETE', `/v2/projects/${pid}/nodes/${copy.body.node_id}`);
  });

  it("a duplicate of the project keeps the node on the remote compute, with its files sent there", async () => {
    const dup = await controller.api('POST', `/v2/projects/${pid}/duplicate`, { name: 'spread-copy' });
    assert.equal(dup.status, 201, dup.text);
    await controller.api('POST', `/v2/projects/${dup.body.project_id}/open`);
    const [node] = (await controller.api('GET', `/v2/projects/${dup.body.project_id}/nodes`)).body;
    assert.equal(node.compute_id, computeId);
    assert.equal(await (await nodeFile(dup.body.project_id, node.node_id)).text(), 'set pcname PC1\nip 10.4.4.1/24\n');
    assert.ok(!existsSync(join(dup.body.path, 'project-files', 'vpcs', node.node_id)), 'no stale copy on the controller');
    assert.equal((await controller.api('DELETE', `/v2/projects/${dup.body.project_id}`)).status, 204);
    assert.ok(!existsSync(join(tmp, 'compute', 'projects', dup.body.project_id)), 'deleting the project removes its files on the compute');
  });

  it('a portable export carries the remote files and runs the node on local', async () => {
    const archive = new Uint8Array(await (await fetch(`${controller.url}/v2/projects/${pid}/export`)).arrayBuffer());
    const imported = await fetch(`${controller.url}/v2/projects/${crypto.randomUUID()}/import`, { method: 'POST', body: archive });
    assert.equal(imported.status, 201);
    const project = await imported.json();
    await controller.api('POST', `/v2/projects/${project.project_id}/open`);
    const [node] = (await controller.api('GET', `/v2/projects/${project.project_id}/nodes`)).body;
    assert.equal(node.compute_id, 'local');
    assert.equal(await (await nodeFile(project.project_id, node.node_id)).text(), 'set pcname PC1\nip 10.4.4.1/24\n');
  });

  it('a snapshot restore puts back the files of remote nodes', async () => {
    const snap = await controller.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'remote' });
    assert.equal(snap.status, 201, snap.text);
    await nodeFile(pid, pc.node_id, 'POST', 'set pcname PC1\nip 10.4.4.99/24\n');
    const restored = await controller.api('POST', `/v2/projects/${pid}/snapshots/${snap.body.snapshot_id}/restore`, {});
    assert.equal(restored.status, 201, restored.text);
    const [node] = (await controller.api('GET', `/v2/projects/${pid}/nodes`)).body;
    assert.deepEqual([node.node_id, node.compute_id], [pc.node_id, computeId]);
    assert.equal(await (await nodeFile(pid, pc.node_id)).text(), 'set pcname PC1\nip 10.4.4.1/24\n');
  });
});
