// Issue 17, item 2: a .gns3project whose QEMU node carries options that open files imports and
// opens, but its node refuses to start (409 naming the option) until its options are edited; the
// file QEMU would write if it honoured the option never appears. With qemu_unsafe_options on, the
// same archive's option reaches QEMU (the file appears): the proof that the first half can fail.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { readCmdline } from '../../../../src/util/proc-info.js';
import { eventually } from '../../../kinds/vpcs/vpcs-helpers.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { qemuProcessesOf } from '../../../helpers/qemu-guest.js';
import { rawZip, type RawEntry } from '../../../helpers/raw-zip.js';

const run = promisify(execFile);
const SAFE_ENV = { EMUCTL_UDP_PORT_RANGE: '23100-23149', EMUCTL_CONSOLE_PORT_RANGE: '27680-27689', EMUCTL_QEMU_ACCEL: 'tcg' };
const UNSAFE_ENV = { EMUCTL_UDP_PORT_RANGE: '23150-23199', EMUCTL_CONSOLE_PORT_RANGE: '27690-27699', EMUCTL_QEMU_ACCEL: 'tcg', EMUCTL_QEMU_UNSAFE_OPTIONS: '1' };

/** A GNS3 2.2 archive with one QEMU node whose options write `marker` (a chardev file backend) if QEMU honours them. */
function harmfulArchive(nodeId: string, options: string, properties: Record<string, unknown> = {}, files: RawEntry[] = []): Buffer {
  const topology = {
    name: 'harmful', project_id: randomUUID(), type: 'topology', version: '2.2.42', revision: 9, auto_start: false, auto_open: false, auto_close: true,
    topology: {
      computes: [], links: [], drawings: [],
      nodes: [{
        compute_id: 'local', node_id: nodeId, node_type: 'qemu', name: 'R1', console: null, console_type: 'none', x: 0, y: 0, z: 1,
        properties: { ram: 64, adapters: 0, platform: 'x86_64', options, ...properties },
      }],
    },
  };
  return rawZip([
    { name: 'project.gns3', data: JSON.stringify(topology) },
    { name: `project-files/qemu/${nodeId}/libplugin.so`, data: 'not really a plugin' },
    ...files,
  ]);
}

describe('end to end: QEMU options from an archive', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-e2e-qemu-options-'));
  let safe: TestDaemon;
  let unsafe: TestDaemon;

  const importAndOpen = async (d: TestDaemon, archive: Buffer) => {
    const id = randomUUID();
    const r = await fetch(`${d.url}/v2/projects/${id}/import`, { method: 'POST', body: new Uint8Array(archive) });
    assert.equal(r.status, 201, await r.text());
    const opened = await d.api('POST', `/v2/projects/${id}/open`);
    assert.equal(opened.status, 201, opened.text);
    const nodes = (await d.api('GET', `/v2/projects/${id}/nodes`)).body;
    assert.equal(nodes.length, 1, 'the node with refused options is in the opened project');
    return { projectId: id, node: nodes[0] };
  };

  before(async () => {
    safe = await startTestDaemon({ home: join(tmp, 'safe'), env: SAFE_ENV });
    unsafe = await startTestDaemon({ home: join(tmp, 'unsafe'), env: UNSAFE_ENV });
  });
  after(async () => {
    await safe?.stop();
    await unsafe?.stop();
    removeHome(tmp);
  });

  it('imports and opens the archive; start answers 409 naming the option, QEMU never runs, the marker never appears', async () => {
    const marker = join(tmp, 'pwned-chardev');
    const pidMarker = join(tmp, 'pwned-pidfile');
    const { projectId, node } = await importAndOpen(safe, harmfulArchive(randomUUID(), `-chardev file,id=c0,path=${marker} -device isa-serial,chardev=c0 -pidfile ${pidMarker}`));
    const start = await safe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {});
    assert.equal(start.status, 409, start.text);
    assert.match(start.body.message, /-chardev/);
    assert.deepEqual(qemuProcessesOf(node.node_id), []);
    assert.equal(existsSync(marker), false);
    assert.equal(existsSync(pidMarker), false);

    const plugin = await safe.api('PUT', `/v2/projects/${projectId}/nodes/${node.node_id}`, { properties: { options: `-plugin file=${join(projectId, 'libplugin.so')}` } });
    assert.equal(plugin.status, 400, plugin.text);
    assert.match(plugin.body.message, /-plugin/);
    assert.equal((await safe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {})).status, 409, 'the refused options are still there');

    // Once edited to allowed options, the node starts and QEMU gets them, as literal arguments after emuctl's own.
    const allowed = '-cpu max -smp 2 -m 64 -device e1000,mac=0c:00:00:00:aa:01,romfile= -rtc base=utc -boot order=c -global e1000.autonegotiation=on -name R1,debug-threads=on';
    const edited = await safe.api('PUT', `/v2/projects/${projectId}/nodes/${node.node_id}`, { properties: { options: allowed } });
    assert.equal(edited.status, 200, edited.text);
    const started = await safe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const [pid] = qemuProcessesOf(node.node_id);
    assert.ok(pid, 'qemu runs');
    const argv = readCmdline(pid)!;
    assert.deepEqual(argv.slice(-allowed.split(' ').length), allowed.split(' '));
    assert.equal((await safe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/stop`, {})).status, 200);
    assert.ok(await eventually(() => qemuProcessesOf(node.node_id).length === 0, 15_000), 'qemu stopped');
    assert.equal((await safe.api('DELETE', `/v2/projects/${projectId}`)).status, 204);
  });

  it('refuses a harmful option at node create through the controller and the compute (400 naming it), and in a template', async () => {
    const pid = (await safe.api('POST', '/v2/projects', { name: 'direct' })).body.project_id;
    for (const options of ['-pidfile /tmp/x', '--plugin file=x.so', '-device loader,file=/etc/shadow', '-global isa-serial.chardev=qmp']) {
      const viaController = await safe.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R', node_type: 'qemu', properties: { options } });
      assert.equal(viaController.status, 400, viaController.text);
      assert.ok(viaController.body.message.includes(options.split(' ')[0]) || viaController.body.message.includes('loader') || viaController.body.message.includes('-global'), viaController.text);
      const viaCompute = await safe.api('POST', `/v2/compute/projects/${pid}/qemu/nodes`, { name: 'R', options });
      assert.equal(viaCompute.status, 400, viaCompute.text);
    }
    for (const properties of [{ kernel_command_line: 'console=ttyS0\0x' }, { options: '-append a\0b' }]) {
      const nul = await safe.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R', node_type: 'qemu', properties });
      assert.equal(nul.status, 400, `a NUL cannot reach an argument (it was a 500 at start): ${nul.text}`);
    }
    const badAdapter = await safe.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R', node_type: 'qemu', properties: { adapter_type: 'e1000,romfile=/etc/shadow' } });
    assert.equal(badAdapter.status, 400, badAdapter.text);
    assert.equal((await safe.api('GET', `/v2/projects/${pid}/nodes`)).body.length, 0, 'no node was left behind');
    const template = await safe.api('POST', '/v2/templates', { name: 'evil', template_type: 'qemu', compute_id: 'local', options: '-readconfig /tmp/x.cfg' });
    assert.equal(template.status, 400, template.text);
    assert.match(template.body.message, /-readconfig/);
    assert.equal((await safe.api('DELETE', `/v2/projects/${pid}`)).status, 204);
  });

  it("an archive's linked-clone overlay whose backing file is a host file: start answers 409 naming it, QEMU never runs", async () => {
    const secret = join(tmp, 'secret');
    writeFileSync(secret, 'host secret\n');
    const base = join(tmp, 'base.qcow2');
    await run('qemu-img', ['create', '-f', 'qcow2', base, '1M']);
    assert.equal((await fetch(`${safe.url}/v2/compute/qemu/images/base.qcow2`, { method: 'POST', body: readFileSync(base) })).status, 204);
    const crafted = join(tmp, 'crafted.qcow2');
    await run('qemu-img', ['create', '-f', 'qcow2', '-F', 'raw', '-b', secret, crafted]);
    const nodeId = randomUUID();
    const archive = harmfulArchive(nodeId, '', { hda_disk_image: 'base.qcow2', linked_clone: true }, [{ name: `project-files/qemu/${nodeId}/hda_disk.qcow2`, data: readFileSync(crafted) }]);
    const { projectId, node } = await importAndOpen(safe, archive);
    const start = await safe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {});
    assert.equal(start.status, 409, start.text);
    assert.ok(start.body.message.includes(secret), start.text);
    assert.deepEqual(qemuProcessesOf(node.node_id), []);

    // An overlay that is a link (here dangling): qemu-img would create its target, QEMU would open it.
    const overlay = join((await safe.api('GET', `/v2/projects/${projectId}`)).body.path, 'project-files', 'qemu', node.node_id, 'hda_disk.qcow2');
    const target = join(tmp, 'created-through-link');
    rmSync(overlay);
    symlinkSync(target, overlay);
    const linked = await safe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {});
    assert.equal(linked.status, 409, linked.text);
    assert.match(linked.body.message, /not a plain file/);
    assert.equal(existsSync(target), false);
    assert.equal((await safe.api('DELETE', `/v2/projects/${projectId}`)).status, 204);

    // An image that became a link out of the images directory after the node was made: 409 at start.
    const pid = (await safe.api('POST', '/v2/projects', { name: 'link-out' })).body.project_id;
    assert.equal((await fetch(`${safe.url}/v2/compute/qemu/images/kernel-link`, { method: 'POST', body: 'k' })).status, 204);
    const vm = await safe.api('POST', `/v2/projects/${pid}/nodes`, { name: 'K1', node_type: 'qemu', properties: { kernel_image: 'kernel-link', adapters: 0, console_type: 'none' } });
    assert.equal(vm.status, 201, vm.text);
    const kernel = join(safe.home, 'images', 'QEMU', 'kernel-link');
    rmSync(kernel);
    symlinkSync(secret, kernel);
    const outside = await safe.api('POST', `/v2/projects/${pid}/nodes/${vm.body.node_id}/start`, {});
    assert.equal(outside.status, 409, outside.text);
    assert.match(outside.body.message, /kernel-link.*link out of the images directory/);
    assert.deepEqual(qemuProcessesOf(vm.body.node_id), []);
    assert.equal((await safe.api('DELETE', `/v2/projects/${pid}`)).status, 204);

    // qemu-img is the one on PATH: a path to another program of that name is refused.
    const fake = join(tmp, 'bin', 'qemu-img');
    mkdirSync(join(tmp, 'bin'));
    writeFileSync(fake, `#!/bin/sh\ntouch ${join(tmp, 'fake-qemu-img-ran')}\n`, { mode: 0o755 });
    const img = await safe.api('POST', '/v2/compute/qemu/img', { qemu_img: fake, path: 'blank.qcow2', format: 'qcow2', size: 8 });
    assert.equal(img.status, 400, img.text);
    assert.equal(existsSync(join(tmp, 'fake-qemu-img-ran')), false);
  });

  it('with qemu_unsafe_options on, the daemon warns at start and the same option reaches QEMU (the marker appears)', async () => {
    assert.match(unsafe.log(), /qemu_unsafe_options is on/);
    const marker = join(tmp, 'unsafe-chardev');
    const { projectId, node } = await importAndOpen(unsafe, harmfulArchive(randomUUID(), `-chardev file,id=c0,path=${marker} -device isa-serial,chardev=c0`));
    const start = await unsafe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/start`, {});
    assert.equal(start.status, 200, start.text);
    assert.ok(await eventually(() => existsSync(marker), 15_000), 'QEMU opened the chardev file');
    assert.equal((await unsafe.api('POST', `/v2/projects/${projectId}/nodes/${node.node_id}/stop`, {})).status, 200);
    assert.ok(await eventually(() => qemuProcessesOf(node.node_id).length === 0, 15_000), 'qemu stopped');
    assert.equal((await unsafe.api('DELETE', `/v2/projects/${projectId}`)).status, 204);
  });
});
