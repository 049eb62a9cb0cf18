// QEMU routers and hosts end to end (issue 10): the test guest (a Debian cloud kernel and a
// busybox initramfs, built from Debian packages and cached) boots under TCG on the local compute
// and on a second, compute-only daemon. Images are uploaded and nodes built through the CLI;
// captures, NIO moves, suspend, stop and crash recovery go through the controller API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../../../src/client/vpcs-console.js';
import { isRunning, readCmdline } from '../../../../src/util/proc-info.js';
import { canBindTcp, canBindUdp, eventually } from '../../../kinds/vpcs/vpcs-helpers.js';
import { cliEnv, runBin } from '../../../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { openWebSocket, type StreamMessage, type StreamRecorder } from '../../../helpers/notifications.js';
import { GuestShell, guestCmdline, qemuProcessesOf, testGuest, type TestGuest } from '../../../helpers/qemu-guest.js';
import { icmpPackets } from '../../../helpers/tshark.js';

const run = promisify(execFile);
const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '19400-19599', EMUCTL_CONSOLE_PORT_RANGE: '27400-27449', EMUCTL_QEMU_ACCEL: 'tcg' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '19600-19799', EMUCTL_CONSOLE_PORT_RANGE: '27450-27499', EMUCTL_QEMU_ACCEL: 'tcg' };

const md5 = (file: string) => createHash('md5').update(readFileSync(file)).digest('hex');

describe('end to end: QEMU guests in a lab', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-e2e-qemu-'));
  const controllerHome = join(tmp, 'controller');
  let guest: TestGuest;
  let controller: TestDaemon;
  let remote: TestDaemon;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  let remoteId: string;
  const disk = join(tmp, 'disk.qcow2');
  /** QEMU's telnet serial server serves one client at a time: one shell per node, kept open. */
  const shells = new Map<string, GuestShell>();
  const consoles: VpcsConsole[] = [];
  const streams: StreamRecorder[] = [];
  const watch = async (d: TestDaemon, path: string) => {
    const stream = await openWebSocket(d.url, path);
    streams.push(stream);
    await stream.next('ping');
    return stream;
  };
  const statusOf = (nodeId: string, status: string) => (m: StreamMessage) => m.action === 'node.updated' && m.event.node_id === nodeId && m.event.status === status;
  const cli = async (...argv: string[]) => {
    const r = await runBin(argv, env);
    assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const nodeByName = async (name: string) => (await controller.api('GET', `/v2/projects/${projectId}/nodes`)).body.find((n: any) => n.name === name);
  const shellOf = async (node: any) => {
    if (!shells.has(node.node_id)) shells.set(node.node_id, await GuestShell.connect(node.console_host, node.console));
    return shells.get(node.node_id)!;
  };

  before(async () => {
    guest = await testGuest();
    await run('qemu-img', ['create', '-f', 'qcow2', disk, '16M']);
    controller = await startTestDaemon({ home: controllerHome, env: CONTROLLER_ENV });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: COMPUTE_ENV });
    env = cliEnv(join(tmp, 'cli'), { EMUCTL_URL: controller.url });
    const r = await controller.api('POST', '/v2/computes', { name: 'remote', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    remoteId = r.body.compute_id;
  });
  after(async () => {
    for (const s of shells.values()) s.close();
    for (const c of consoles) c.close();
    for (const s of streams) s.close();
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('uploads images through the CLI and the forward route, streamed, with md5 checked; a repeat sends nothing', async () => {
    for (const [file, name] of [[guest.kernel, 'vmlinuz'], [guest.initrd, 'initrd.img'], [disk, 'disk.qcow2']]) {
      await cli('image', 'upload', file, '--name', name);
      await cli('image', 'upload', file, '--name', name, '--compute', 'remote');
    }
    const again = await runBin(['image', 'upload', guest.kernel, '--name', 'vmlinuz'], env);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already on compute local .*nothing to upload/);
    const list = JSON.parse(await cli('image', 'list', '--kind', 'qemu', '--json'));
    assert.deepEqual(list.map((i: any) => [i.kind, i.filename]).sort(), [['qemu', 'disk.qcow2'], ['qemu', 'initrd.img'], ['qemu', 'vmlinuz']]);
    assert.equal(list.find((i: any) => i.filename === 'vmlinuz').md5sum, md5(guest.kernel));
    assert.ok(existsSync(join(controllerHome, 'images', 'QEMU', 'vmlinuz.md5sum')), 'md5 cached beside the image, as GNS3 does');
    const onRemote = await remote.api('GET', '/v2/compute/qemu/images');
    assert.equal(onRemote.body.length, 3, onRemote.text);
  });

  it('bad input: traversal 400, missing image 409 naming it, missing binary 409 naming the package, a crash on start shows qemu\'s stderr', async () => {
    const traversal = await controller.api('POST', '/v2/compute/qemu/images/..%2Fescape', 'x');
    assert.equal(traversal.status, 400, traversal.text);
    const viaForward = await controller.api('POST', '/v2/computes/local/qemu/images/sub%2F..%2F..%2Fescape', 'x');
    assert.equal(viaForward.status, 400, viaForward.text);
    assert.equal(existsSync(join(controllerHome, 'images', 'escape')), false);

    const pid = (await controller.api('POST', '/v2/projects', { name: 'qemu-bad' })).body.project_id;
    const missing = await controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R9', node_type: 'qemu', properties: { hda_disk_image: 'nope.qcow2' } });
    assert.equal(missing.status, 409, missing.text);
    assert.match(missing.body.message, /nope\.qcow2/);

    const sparc = await controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'S1', node_type: 'qemu', properties: { platform: 'sparc64' } });
    assert.equal(sparc.status, 201, sparc.text);
    const noBinary = await controller.api('POST', `/v2/projects/${pid}/nodes/${sparc.body.node_id}/start`, {});
    assert.equal(noBinary.status, 409, noBinary.text);
    assert.match(noBinary.body.message, /qemu-system-sparc64.*apt-get install qemu-system-sparc/);

    const crash = await controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'C1', node_type: 'qemu', properties: { kernel_image: 'vmlinuz', options: '-machine no-such-machine' } });
    const crashed = await controller.api('POST', `/v2/projects/${pid}/nodes/${crash.body.node_id}/start`, {});
    assert.equal(crashed.status, 409, crashed.text);
    assert.match(crashed.body.message, /QEMU exited \(code 1\) while starting: .*unsupported machine type/);
    assert.deepEqual(qemuProcessesOf(crash.body.node_id), []);
    assert.equal((await controller.api('DELETE', `/v2/projects/${pid}`)).status, 204);
  });

  it('builds SW1, PC1 and R1 (qemu) with the CLI; R1 boots under TCG with its options as literal arguments', async () => {
    projectId = JSON.parse(await cli('project', 'create', 'qemu-lab', '--json')).project_id;
    env.EMUCTL_PROJECT = projectId;
    await cli('switch', 'create', 'SW1', '-p', projectId);
    await cli('node', 'create', 'PC1', '--type', 'vpcs', '-p', projectId);
    const marker = join(tmp, 'pwned');
    await cli('node', 'create', 'R1', '--type', 'qemu', '-p', projectId, '--kernel', 'vmlinuz', '--initrd', 'initrd.img', '--image', 'disk.qcow2',
      '--disk-interface', 'virtio', '--ram', '128', '--adapters', '2', '--adapter-type', 'virtio-net-pci', '--append', guestCmdline(['10.0.0.5/24']),
      '--option', `-smbios "type=1,serial=a;touch ${marker}|b\$(touch ${marker})"`);
    await cli('link', 'create', 'R1:0/0', 'SW1:0/0', '-p', projectId);
    await cli('link', 'create', 'PC1:0/0', 'SW1:0/1', '-p', projectId);
    await cli('node', 'start', 'R1', '-p', projectId);
    await cli('node', 'start', 'PC1', '-p', projectId);
    const r1 = await nodeByName('R1');
    assert.equal(r1.status, 'started');
    assert.equal(r1.properties.accel, 'tcg');
    assert.equal(r1.properties.monitor_status, 'running');
    const [pid] = qemuProcessesOf(r1.node_id);
    assert.ok(pid, 'a qemu process runs for R1');
    const argv = readCmdline(pid)!;
    assert.ok(argv.includes(`type=1,serial=a;touch ${marker}|b$(touch ${marker})`), `options passed as one literal argument: ${argv.join(' ')}`);
    assert.equal(existsSync(marker), false, 'no shell ran the options');
    const show = await cli('node', 'show', 'R1', '-p', projectId);
    for (const field of ['accel:', 'monitor:', 'disks:', 'adapters:', 'command:', 'virtio-net-pci', r1.ports[1].mac_address]) assert.ok(show.includes(field), `node show has ${field}:\n${show}`);
  });

  it('the serial console answers a shell command; the guest and a VPCS ping each other over the switch', async () => {
    const r1 = await nodeByName('R1');
    const shell = await shellOf(r1);
    const uname = await shell.run('uname -r');
    assert.equal(uname.status, 0);
    assert.ok(uname.output.includes(guest.version), uname.output);
    const pc1 = await nodeByName('PC1');
    const vpcs = await connectVpcsConsole(pc1.console_host, pc1.console);
    consoles.push(vpcs);
    await setIp(vpcs, '10.0.0.1/24');

    const link = (await controller.api('GET', `/v2/projects/${projectId}/links`)).body.find((l: any) => l.nodes.some((e: any) => e.node_id === r1.node_id));
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/links/${link.link_id}/start_capture`, {})).status, 201);
    const portCapture = await controller.api('POST', `/v2/compute/projects/${projectId}/qemu/nodes/${r1.node_id}/adapters/0/ports/0/start_capture`, { capture_file_name: 'r1-eth0.pcap' });
    assert.equal(portCapture.status, 200, portCapture.text);

    const fromGuest = await shell.run('ping -c 3 -W 2 10.0.0.1');
    assert.match(fromGuest.output, /3 packets received/, fromGuest.output);
    const fromVpcs = await ping(vpcs, '10.0.0.5', 3, { intervalMs: 100, waitMs: 2000 });
    assert.equal(fromVpcs.received, 3);

    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/links/${link.link_id}/stop_capture`, {})).status, 201);
    assert.equal((await controller.api('POST', `/v2/compute/projects/${projectId}/qemu/nodes/${r1.node_id}/adapters/0/ports/0/stop_capture`, {})).status, 204);
    const linkPcap = (await controller.api('GET', `/v2/projects/${projectId}/links/${link.link_id}`)).body.capture_file_path;
    for (const file of [linkPcap, portCapture.body.pcap_file_path]) {
      const packets = await icmpPackets(file);
      assert.ok(packets.some((p) => p.src === '10.0.0.5' && p.dst === '10.0.0.1' && p.type === 8), `guest's echo request in ${file}`);
      assert.ok(packets.some((p) => p.src === '10.0.0.1' && p.dst === '10.0.0.5' && p.type === 0), `echo reply in ${file}`);
    }
  });

  it("the guest's disk is a qcow2 overlay in its node directory backed by the uploaded image, which stays unchanged", async () => {
    const r1 = await nodeByName('R1');
    const overlay = join(r1.node_directory, 'hda_disk.qcow2');
    const image = join(controllerHome, 'images', 'QEMU', 'disk.qcow2');
    const before = md5(image);
    const shell = await shellOf(r1);
    const write = await shell.run('echo emuctl-overlay-write > /dev/vda && sync');
    assert.equal(write.status, 0, write.output);
    const { stdout } = await run('qemu-img', ['info', '--output=json', '-U', overlay]);
    const info = JSON.parse(stdout);
    assert.equal(info.format, 'qcow2');
    assert.equal(info['full-backing-filename'] ?? info['backing-filename'], image);
    assert.equal(md5(image), before, 'the image was never written');
    assert.equal(before, md5(disk), 'the image is the uploaded file');
  });

  it('a NIO moved while the VM runs keeps working, and the guest sees its link go down and up', async () => {
    const r1 = await nodeByName('R1');
    const sw = await nodeByName('SW1');
    const shell = await shellOf(r1);
    const links = (await controller.api('GET', `/v2/projects/${projectId}/links`)).body;
    const old = links.find((l: any) => l.nodes.some((e: any) => e.node_id === r1.node_id));
    assert.equal((await controller.api('DELETE', `/v2/projects/${projectId}/links/${old.link_id}`)).status, 204);
    assert.equal((await shell.run('cat /sys/class/net/eth0/carrier')).output.trim(), '0', 'unplugged adapter: no carrier');
    const moved = await controller.api('POST', `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: r1.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: 5 }],
    });
    assert.equal(moved.status, 201, moved.text);
    assert.equal((await shell.run('cat /sys/class/net/eth0/carrier')).output.trim(), '1');
    const again = await shell.run('ping -c 2 -W 2 10.0.0.1');
    assert.match(again.output, /2 packets received/, again.output);
  });

  it("a link filter and a capture on the QEMU end of a link (R1's eth1 straight to a VPCS) work as on any node", async () => {
    const r1 = await nodeByName('R1');
    const pc2 = (await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'PC2', node_type: 'vpcs' })).body;
    const link = await controller.api('POST', `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: r1.node_id, adapter_number: 1, port_number: 0 }, { node_id: pc2.node_id, adapter_number: 0, port_number: 0 }],
      filters: { delay: [150] },
    });
    assert.equal(link.status, 201, link.text);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${pc2.node_id}/start`, {})).status, 200);
    const shell = await shellOf(r1);
    assert.equal((await shell.run('ip addr add 10.0.9.5/24 dev eth1 && ip link set eth1 up')).status, 0);
    const vpcs = await connectVpcsConsole('127.0.0.1', (await nodeByName('PC2')).console);
    consoles.push(vpcs);
    await setIp(vpcs, '10.0.9.1/24');
    const capture = await controller.api('POST', `/v2/projects/${projectId}/links/${link.body.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    assert.equal(capture.body.capture_compute_id, 'local');
    const delayed = await shell.run('ping -c 2 -W 3 10.0.9.1');
    assert.match(delayed.output, /2 packets received/, delayed.output);
    const rtts = [...delayed.output.matchAll(/time=([\d.]+) ms/g)].map((m) => Number(m[1]));
    assert.ok(rtts.length === 2 && rtts.every((t) => t >= 150), `the 150 ms delay on the QEMU end is honoured: ${rtts.join(', ')} ms`);
    const update = await controller.api('PUT', `/v2/projects/${projectId}/links/${link.body.link_id}`, { filters: { frequency_drop: [-1] } });
    assert.equal(update.status, 201, update.text);
    assert.match((await shell.run('ping -c 2 -W 1 10.0.9.1')).output, /0 packets received/, 'frequency_drop -1 drops everything');
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/links/${link.body.link_id}/stop_capture`, {})).status, 201);
    const packets = await icmpPackets((await controller.api('GET', `/v2/projects/${projectId}/links/${link.body.link_id}`)).body.capture_file_path);
    assert.ok(packets.some((p) => p.src === '10.0.9.5' && p.dst === '10.0.9.1' && p.type === 8), 'echo requests captured on the QEMU end');
    assert.equal((await controller.api('DELETE', `/v2/projects/${projectId}/links/${link.body.link_id}`)).status, 204);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${pc2.node_id}/stop`, {})).status, 200);
  });

  it('suspend pauses the guest through QMP and resume (start) continues it, each change published as node.updated', async () => {
    const r1 = await nodeByName('R1');
    const events = await watch(controller, '/v2/compute/notifications/ws');
    const suspended = await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/suspend`, {});
    assert.equal(suspended.status, 200, suspended.text);
    assert.equal(suspended.body.status, 'suspended');
    assert.equal(suspended.body.properties.monitor_status, 'paused');
    const resumed = await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/start`, {});
    assert.equal(resumed.body.status, 'started');
    assert.equal(resumed.body.properties.monitor_status, 'running');
    assert.equal((await events.next(statusOf(r1.node_id, 'suspended'))).event.monitor_status, 'paused', "the compute's node JSON");
    assert.equal((await events.next(statusOf(r1.node_id, 'started'))).event.monitor_status, 'running');
  });

  it('two guests on two computes ping across a cross-compute link', async () => {
    const r2 = await controller.api('POST', `/v2/projects/${projectId}/nodes`, {
      name: 'R2', node_type: 'qemu', compute_id: remoteId,
      properties: { kernel_image: 'vmlinuz', initrd: 'initrd.img', ram: 128, adapter_type: 'virtio-net-pci', kernel_command_line: guestCmdline(['10.0.0.6/24']) },
    });
    assert.equal(r2.status, 201, r2.text);
    const sw = await nodeByName('SW1');
    const link = await controller.api('POST', `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: r2.body.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: 3 }],
    });
    assert.equal(link.status, 201, link.text);
    const started = await controller.api('POST', `/v2/projects/${projectId}/nodes/${r2.body.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal((await remote.api('GET', `/v2/compute/projects/${projectId}/qemu/nodes/${r2.body.node_id}`)).body.status, 'started', 'R2 runs on the remote compute');
    await shellOf(await nodeByName('R2')); // its shell answers once the guest has booted
    const shell = await shellOf(await nodeByName('R1'));
    const r = await shell.run('ping -c 3 -W 3 10.0.0.6', 30_000);
    assert.match(r.output, /3 packets received/, r.output);
  });

  it('a VM that ends on its own turns stopped, published on the compute and project streams, and the log names its exit status and its last stderr lines', async () => {
    const r2 = await nodeByName('R2');
    const [pid] = qemuProcessesOf(r2.node_id);
    assert.ok(pid);
    shells.get(r2.node_id)?.close();
    shells.delete(r2.node_id);
    const computeStream = await watch(remote, '/v2/compute/notifications/ws');
    const projectStream = await watch(controller, `/v2/projects/${projectId}/notifications/ws`);
    process.kill(pid, 'SIGTERM');
    await computeStream.next(statusOf(r2.node_id, 'stopped'));
    assert.match(computeStream.messages.find((m) => m.action === 'log.error')?.event.message ?? '', /QEMU VM R2 has stopped/, 'a log.error as for VPCS');
    await projectStream.next(statusOf(r2.node_id, 'stopped'));
    const path = `/v2/compute/projects/${projectId}/qemu/nodes/${r2.node_id}`;
    assert.equal((await remote.api('GET', path)).body.status, 'stopped', 'R2 reported stopped');
    assert.match(remote.log(), /QEMU VM R2 stopped on its own \((exit code \d+|signal SIGTERM)\); last lines of its stderr: .*terminating on signal 15/);
    const again = await controller.api('POST', `/v2/projects/${projectId}/nodes/${r2.node_id}/start`, {});
    assert.equal(again.status, 200, `it starts again: ${again.text}`);
  });

  it('stop ends the process and frees its console and tunnel ports', async () => {
    const r1 = await nodeByName('R1');
    const [pid] = qemuProcessesOf(r1.node_id);
    const argv = readCmdline(pid)!;
    const tunnelPorts = argv.filter((a) => a.startsWith('socket,id=gns3-')).flatMap((a) => [...a.matchAll(/:(\d+)/g)].map((m) => Number(m[1])));
    assert.equal(tunnelPorts.length, 4, argv.join(' '));
    for (const s of shells.values()) s.close();
    shells.clear();
    await cli('node', 'stop', 'R1', '-p', projectId);
    assert.equal(isRunning(pid), false, 'qemu ended');
    assert.equal((await nodeByName('R1')).status, 'stopped');
    assert.ok(await eventually(() => canBindTcp(r1.console)), 'console port free');
    for (const port of tunnelPorts) assert.ok(await canBindUdp(port), `tunnel port ${port} free`);
  });

  it('disk routes: qemu/img creates and grows images in the images directory, resize_disk grows the overlay, duplicate copies the node directory', async () => {
    const images = join(controllerHome, 'images', 'QEMU');
    const virtualSize = async (file: string) => JSON.parse((await run('qemu-img', ['info', '--output=json', '-U', file])).stdout)['virtual-size'];
    const created = await controller.api('POST', '/v2/compute/qemu/img', { qemu_img: 'qemu-img', path: 'blank.qcow2', format: 'qcow2', size: 8 });
    assert.equal(created.status, 201, created.text);
    assert.equal((await controller.api('PUT', '/v2/compute/qemu/img', { qemu_img: 'qemu-img', path: 'blank.qcow2', extend: 8 })).status, 201);
    assert.equal(await virtualSize(join(images, 'blank.qcow2')), 16 * 1024 * 1024);
    assert.equal((await controller.api('POST', '/v2/compute/qemu/img', { qemu_img: 'qemu-img', path: '../blank.qcow2', format: 'qcow2', size: 8 })).status, 400);
    assert.equal((await controller.api('POST', '/v2/compute/qemu/img', { qemu_img: '/bin/rm', path: 'x.qcow2', format: 'qcow2', size: 8 })).status, 400);
    const binaries = await controller.api('GET', '/v2/compute/qemu/binaries');
    assert.ok(binaries.body.some((b: any) => b.path.endsWith('/qemu-system-x86_64') && /^\d+\.\d+/.test(b.version)), binaries.text);
    assert.ok(Array.isArray((await controller.api('GET', '/v2/compute/qemu/capabilities')).body.kvm));
    for (const d of [controller, remote]) {
      const caps = (await d.api('GET', '/v2/compute/capabilities')).body;
      assert.deepEqual(Object.keys(caps).sort(), ['node_types', 'platform', 'version'], "GNS3 2.2's keys only");
      assert.ok(caps.node_types.includes('qemu'), `qemu is installed, so it is a node type: ${caps.node_types}`);
    }

    const r1 = await nodeByName('R1');
    const resized = await controller.api('POST', `/v2/compute/projects/${projectId}/qemu/nodes/${r1.node_id}/resize_disk`, { drive_name: 'hda', extend: 4 });
    assert.equal(resized.status, 201, resized.text);
    assert.equal(await virtualSize(join(r1.node_directory, 'hda_disk.qcow2')), 20 * 1024 * 1024);
    assert.equal(await virtualSize(join(images, 'disk.qcow2')), 16 * 1024 * 1024, 'the image keeps its size');

    const r3 = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'R3', node_type: 'qemu', properties: { hda_disk_image: 'disk.qcow2', kernel_image: 'vmlinuz' } });
    const dup = await controller.api('POST', `/v2/compute/projects/${projectId}/qemu/nodes/${r1.node_id}/duplicate`, { destination_node_id: r3.body.node_id });
    assert.equal(dup.status, 201, dup.text);
    assert.equal(await virtualSize(join(r3.body.node_directory, 'hda_disk.qcow2')), 20 * 1024 * 1024, "R3 got R1's overlay");
  });

  it('on_close save_vm_state: stop saves the running state (savevm over QMP) and the next start resumes it', async () => {
    const r1 = await nodeByName('R1');
    const set = await controller.api('PUT', `/v2/projects/${projectId}/nodes/${r1.node_id}`, { properties: { on_close: 'save_vm_state' } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/start`, {})).status, 200);
    let shell = await shellOf(r1);
    assert.equal((await shell.run('echo kept-in-ram > /tmp/state')).status, 0);
    shell.close();
    shells.delete(r1.node_id);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/stop`, {})).status, 200);
    assert.deepEqual(qemuProcessesOf(r1.node_id), []);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/start`, {})).status, 200);
    assert.ok(readCmdline(qemuProcessesOf(r1.node_id)[0])!.includes('-loadvm'), 'started from the saved state');
    shell = await shellOf(r1);
    assert.equal((await shell.run('cat /tmp/state')).output.trim(), 'kept-in-ram', 'the RAM state came back');
    shell.close();
    shells.delete(r1.node_id);
    assert.equal((await controller.api('PUT', `/v2/projects/${projectId}/nodes/${r1.node_id}`, { properties: { on_close: 'power_off' } })).status, 200);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/stop`, {})).status, 200);
  });

  it('kill -9 of the daemon, then a restart, leaves no qemu process behind', async () => {
    const r1 = await nodeByName('R1');
    await cli('node', 'start', 'R1', '-p', projectId);
    const [pid] = qemuProcessesOf(r1.node_id);
    assert.ok(pid);
    await controller.stop('SIGKILL');
    assert.ok(isRunning(pid), 'qemu outlives a SIGKILLed daemon (own session)');
    controller = await startTestDaemon({ home: controllerHome, env: CONTROLLER_ENV });
    assert.ok(await eventually(() => !isRunning(pid)), 'the restarted daemon stopped the leftover');
    assert.deepEqual(qemuProcessesOf(r1.node_id), []);
    assert.match(controller.log(), /stopped leftover process \d+ \(qemu R1/);
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/open`, {})).status, 201);
    const restarted = await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/start`, {});
    assert.equal(restarted.status, 200, `its console port is free again: ${restarted.text}`);
    await controller.api('POST', `/v2/projects/${projectId}/nodes/${r1.node_id}/stop`, {});
  });
});
