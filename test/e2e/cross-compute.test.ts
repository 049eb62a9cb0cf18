// A lab across two computes on this machine (issue 5): the controller daemon (controller + local
// compute) and a compute-only daemon registered with it. PC1 runs on the local compute; the switch
// and PC2 run on the remote one, so the PC1–switch link crosses computes and its capture runs on the
// remote compute (GNS3's choice: the always-running end).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectVpcsConsole, ping, setIp, type PingResult, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { icmpPackets } from '../helpers/tshark.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '31400-31599', EMUCTL_CONSOLE_PORT_RANGE: '25300-25349' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '31600-31799', EMUCTL_CONSOLE_PORT_RANGE: '25350-25399' };


const show = (r: PingResult) => `sent ${r.sent}, received ${r.received}${r.error ? `, error "${r.error}"` : ''}`;

describe('end to end: a lab spanning two computes', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-e2e-xc-'));
  let controller: TestDaemon | undefined;
  let remote: TestDaemon | undefined;
  let computeId: string;
  let pid: string;
  let sw: any;
  let pc1: any;
  let pc2: any;
  let crossLink: any;
  const consoles: VpcsConsole[] = [];

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: CONTROLLER_ENV });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: COMPUTE_ENV });
  });
  after(async () => {
    for (const c of consoles) c.close();
    // Each daemon stops the VPCS it runs on its way out.
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('registers the compute-only daemon as a compute', async () => {
    const r = await controller!.api('POST', '/v2/computes', { name: 'remote', protocol: 'http', host: '127.0.0.1', port: remote!.port });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.connected, true, r.text);
    computeId = r.body.compute_id;
    const caps = await controller!.api('GET', `/v2/computes/${computeId}`);
    assert.ok(caps.body.capabilities?.node_types?.includes('vpcs'), `remote capabilities: ${JSON.stringify(caps.body.capabilities)}`);
  });

  it('builds the lab: PC1 on local, switch and PC2 on the remote compute', async () => {
    assert.ok(computeId, 'compute registered');
    pid = await createProject(controller!, 'cross-compute');
    sw = await createNode(controller!, pid, 'SW1', 'ethernet_switch', { compute_id: computeId });
    pc1 = await createNode(controller!, pid, 'PC1', 'vpcs', { compute_id: 'local' });
    pc2 = await createNode(controller!, pid, 'PC2', 'vpcs', { compute_id: computeId });
    assert.equal(sw.compute_id, computeId);
    assert.equal(pc2.compute_id, computeId);
    assert.equal(pc1.compute_id, 'local');
    // The remote compute really holds the switch and PC2.
    const onRemote = await remote!.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${sw.node_id}`);
    assert.equal(onRemote.status, 200, onRemote.text);
    assert.equal((await remote!.api('GET', `/v2/compute/projects/${pid}/vpcs/nodes/${pc2.node_id}`)).status, 200);

    crossLink = await createLink(controller!, pid, [pc1.node_id, 0], [sw.node_id, 0]);
    await createLink(controller!, pid, [pc2.node_id, 0], [sw.node_id, 1]);
    for (const pc of [pc1, pc2]) {
      const r = await controller!.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'started');
    }
  });

  it('the two VPCS have distinct MAC addresses though each compute numbers its own', async () => {
    const nodes = (await controller!.api('GET', `/v2/projects/${pid}/nodes`)).body;
    const macs = nodes.filter((n: any) => n.node_type === 'vpcs').map((n: any) => n.properties.mac_address);
    assert.equal(macs.length, 2);
    assert.notEqual(macs[0], macs[1], `both VPCS use ${macs[0]}: frames between them cannot be switched`);
  });

  it('PC1 (local) pings PC2 (remote) across the computes while the cross-compute link is captured', async () => {
    for (const pc of [pc1, pc2]) {
      const node = (await controller!.api('GET', `/v2/projects/${pid}/nodes/${pc.node_id}`)).body;
      assert.equal(node.console_host, '127.0.0.1', `${node.name}'s console is on its compute's host`);
      consoles.push(await connectVpcsConsole(node.console_host, node.console));
    }
    const [c1, c2] = consoles;
    await setIp(c1, '10.0.0.1/24');
    await setIp(c2, '10.0.0.2/24');

    const capture = await controller!.api('POST', `/v2/projects/${pid}/links/${crossLink.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    assert.equal(capture.body.capture_compute_id, computeId, 'captured on the switch end, on the remote compute');
    const r = await ping(c1, '10.0.0.2', 3, { intervalMs: 100, waitMs: 2000 });
    assert.equal(r.received, 3, show(r));
    const back = await ping(c2, '10.0.0.1', 2, { intervalMs: 100, waitMs: 2000 });
    assert.equal(back.received, 2, show(back));
  });

  it('tshark reads the cross-compute capture, from the compute\'s file and streamed through the controller', async () => {
    const link = (await controller!.api('GET', `/v2/projects/${pid}/links/${crossLink.link_id}`)).body;
    assert.equal(link.capturing, true);

    // GET .../pcap follows the growing file; stopping the capture flushes it and ends the stream with the rest.
    const res = await fetch(`${controller!.url}/v2/projects/${pid}/links/${crossLink.link_id}/pcap`);
    assert.equal(res.status, 200);
    const stopped = await controller!.api('POST', `/v2/projects/${pid}/links/${crossLink.link_id}/stop_capture`, {});
    assert.equal(stopped.status, 201, stopped.text);
    const chunks = [Buffer.from(await res.arrayBuffer())];

    const packets = await icmpPackets(link.capture_file_path);
    assert.ok(packets.some((p) => p.src === '10.0.0.1' && p.dst === '10.0.0.2' && p.type === 8), `echo request in ${link.capture_file_path}`);
    assert.ok(packets.some((p) => p.src === '10.0.0.2' && p.dst === '10.0.0.1' && p.type === 0), 'echo reply');

    const pulled = join(tmp, 'pulled.pcap');
    writeFileSync(pulled, Buffer.concat(chunks));
    assert.equal(Buffer.concat(chunks).readUInt32LE(0), 0xa1b2c3d4, 'pcap magic');
    const streamed = await icmpPackets(pulled);
    assert.ok(streamed.filter((p) => p.type === 8).length >= 3, `tshark reads the streamed capture (${streamed.length} ICMP)`);
    assert.deepEqual(streamed, packets, 'the stream carries the whole file');
  });
});
