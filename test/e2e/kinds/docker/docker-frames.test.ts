// Real frames through docker nodes: two busybox containers on a UDP tunnel link made by the controller,
// pings by Docker's exec API, the link's capture read by tshark, suspend and filters, and a container pinging a VPCS.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { connectVpcsConsole, setIp, type VpcsConsole } from '../../../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../../../helpers/daemon.js';
import { testImage } from '../../../helpers/docker-images.js';
import { createNode, createProject } from '../../../helpers/lab.js';
import { icmpPackets, type IcmpPacket } from '../../../helpers/tshark.js';

const run = promisify(execFile);
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const ENV = { EMUCTL_UDP_PORT_RANGE: '27200-27299', EMUCTL_CONSOLE_PORT_RANGE: '27300-27399' };

async function packetsOnceWritten(file: string, enough: (packets: IcmpPacket[]) => boolean): Promise<IcmpPacket[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const packets = await icmpPackets(file);
    if (enough(packets) || Date.now() > deadline) return packets;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('end to end: docker nodes exchange real frames through the dataplane', () => {
  let d: TestDaemon;
  let pid: string;
  let h1: any;
  let h2: any;
  let pc: any;
  let link: any;
  let vpcs: VpcsConsole | undefined;
  const containers: string[] = [];

  const exec = async (node: any, command: string[]) => {
    const r = await d.api('POST', `/v2/projects/${pid}/nodes/${node.node_id}/exec`, { command, timeout: 60 });
    assert.equal(r.status, 200, r.text);
    return r.body as { output: string; exit_code: number };
  };
  const pingFrom = (node: any, ip: string, count = 3) => exec(node, ['ping', '-c', String(count), '-W', '2', ip]);
  const linkNodes = async (a: [string, number], b: [string, number]) => {
    const r = await d.api('POST', `/v2/projects/${pid}/links`, { nodes: [{ node_id: a[0], adapter_number: a[1], port_number: 0 }, { node_id: b[0], adapter_number: b[1], port_number: 0 }] });
    assert.equal(r.status, 201, r.text);
    return r.body;
  };
  const setLink = async (body: Record<string, unknown>) => {
    const r = await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, body);
    assert.equal(r.status, 201, r.text);
  };

  before(async () => {
    // The image script takes seconds: it runs while the daemon starts (awaited below, its failure too).
    const hostImage = testImage('host');
    hostImage.catch(() => undefined);
    d = await startTestDaemon({ env: ENV });
    pid = await createProject(d, `docker-frames-${randomUUID().slice(0, 8)}`);
    const props = { image: await hostImage, start_command: 'sleep 100000' };
    // The three nodes are independent: created, and later started, at the same time.
    [h1, h2, pc] = await Promise.all([
      createNode(d, pid, 'H1', 'docker', { compute_id: 'local', properties: { ...props, adapters: 2 } }),
      createNode(d, pid, 'H2', 'docker', { compute_id: 'local', properties: { ...props, adapters: 1 } }),
      createNode(d, pid, 'PC1', 'vpcs', { compute_id: 'local' }),
    ]);
    for (const n of [h1, h2]) containers.push((await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${n.node_id}`)).body.container_id);
    link = await linkNodes([h1.node_id, 0], [h2.node_id, 0]);
    await linkNodes([h1.node_id, 1], [pc.node_id, 0]);
    await Promise.all([h1, h2, pc].map(async (n) => {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes/${n.node_id}/start`, {});
      assert.equal(r.status, 200, r.text);
    }));
    assert.equal((await exec(h1, ['ip', 'addr', 'add', '198.18.1.1/24', 'dev', 'eth0'])).exit_code, 0);
    assert.equal((await exec(h2, ['ip', 'addr', 'add', '198.18.1.2/24', 'dev', 'eth0'])).exit_code, 0);
    assert.equal((await exec(h1, ['ip', 'addr', 'add', '198.18.2.1/24', 'dev', 'eth1'])).exit_code, 0);
    vpcs = await connectVpcsConsole('127.0.0.1', pc.console);
    await setIp(vpcs, '198.18.2.2/24');
  });
  after(async () => {
    vpcs?.close();
    if (d) {
      await d.api('DELETE', `/v2/projects/${pid}`).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    for (const id of containers) await docker.getContainer(id).remove({ force: true }).catch(() => undefined);
  });

  it('H1 pings H2 across the link, and the link capture shows the echo requests and replies in tshark', async () => {
    const capture = await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    const r = await pingFrom(h1, '198.18.1.2');
    assert.equal(r.exit_code, 0, r.output);
    assert.match(r.output, /3 packets received/);
    const packets = await packetsOnceWritten(capture.body.capture_file_path, (p) => p.filter((x) => x.type === 0).length >= 3);
    assert.ok(packets.filter((p) => p.type === 8 && p.src === '198.18.1.1' && p.dst === '198.18.1.2').length >= 3, JSON.stringify(packets));
    assert.ok(packets.filter((p) => p.type === 0 && p.src === '198.18.1.2' && p.dst === '198.18.1.1').length >= 3, JSON.stringify(packets));
    assert.equal((await d.api('POST', `/v2/projects/${pid}/links/${link.link_id}/stop_capture`, {})).status, 201);
  });

  it('a suspended link carries nothing; resumed, pings cross again', async () => {
    await setLink({ suspend: true });
    const cut = await pingFrom(h1, '198.18.1.2', 2);
    assert.notEqual(cut.exit_code, 0, cut.output);
    assert.match(cut.output, /0 packets received/);
    await setLink({ suspend: false });
    const back = await pingFrom(h1, '198.18.1.2');
    assert.equal(back.exit_code, 0, back.output);
  });

  it('a bpf filter on the link drops ICMP; cleared, pings cross again', async () => {
    await setLink({ filters: { bpf: ['icmp'] } });
    const dropped = await pingFrom(h1, '198.18.1.2', 2);
    assert.notEqual(dropped.exit_code, 0, dropped.output);
    await setLink({ filters: {} });
    const back = await pingFrom(h1, '198.18.1.2');
    assert.equal(back.exit_code, 0, back.output);
  });

  it('a docker container pings a VPCS', async () => {
    const r = await pingFrom(h1, '198.18.2.2');
    assert.equal(r.exit_code, 0, r.output);
  });

  it('deleting the project removes the containers and leaves no interface', async () => {
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}`)).status, 204);
    for (const id of containers) assert.equal(await docker.getContainer(id).inspect().then(() => true, () => false), false, id);
    const { stdout } = await run('ip', ['-o', 'link']);
    for (const n of [h1, h2]) assert.ok(!stdout.includes(`emd${n.node_id.replace(/-/g, '').slice(0, 8)}`), stdout);
  });
});
