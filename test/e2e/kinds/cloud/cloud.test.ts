import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { freeTestSubnet, linksStartingWith } from '../../../helpers/host-network.js';
import { createLink, createNode, createProject } from '../../../helpers/lab.js';
import { icmpPackets } from '../../../helpers/tshark.js';

const run = promisify(execFile);
const ENV = { EMUCTL_UDP_PORT_RANGE: '29330-29429', EMUCTL_CONSOLE_PORT_RANGE: '29430-29529' };

/** Names this run owns. */
const ID = `${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
const NS = `ecl${ID}-ns`;
const VETH_HOST = `ecl${ID}h`;
const VETH_NS = `ecl${ID}n`;
const TAP = `ecl${ID}t`;
const KEPT_TAP = `ecl${ID}k`;

const inNs = (...args: string[]) => run('ip', ['netns', 'exec', NS, ...args]);

/** Sends `count` ICMP echo requests to argv[1] from a raw socket and prints how many replies came (no ping binary needed). */
const PING = `
import socket, struct, sys, time
def csum(b):
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff); s += s >> 16
    return ~s & 0xffff
sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
sock.settimeout(2)
got = 0
for seq in range(int(sys.argv[2])):
    body = struct.pack('!BBHHH', 8, 0, 0, 0x4242, seq) + b'emuctl-ping-test'
    sock.sendto(body[:2] + struct.pack('!H', csum(body)) + body[4:], (sys.argv[1], 0))
    end = time.time() + 2
    while time.time() < end:
        try:
            data, addr = sock.recvfrom(2048)
        except socket.timeout:
            break
        icmp = data[(data[0] & 15) * 4:]
        if addr[0] == sys.argv[1] and icmp[0] == 0 and struct.unpack('!HH', icmp[4:8]) == (0x4242, seq):
            got += 1
            break
print(got)
`;

async function packetsOnceWritten(file: string, enough: (n: number) => boolean): Promise<Awaited<ReturnType<typeof icmpPackets>>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const packets = await icmpPackets(file);
    if (enough(packets.length) || Date.now() > deadline) return packets;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('cloud node: a lab port bridged to a veth whose other end is an outside host in a namespace', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-cloud-'));
  let d: TestDaemon;
  let projectId: string;
  let outside: string;
  let inside: string;
  const consoles: VpcsConsole[] = [];

  before(async () => {
    const { prefix } = await freeTestSubnet();
    outside = `${prefix}.2`;
    inside = `${prefix}.1`;
    await run('ip', ['netns', 'add', NS]);
    await run('ip', ['link', 'add', VETH_HOST, 'type', 'veth', 'peer', 'name', VETH_NS]);
    await run('ip', ['link', 'set', VETH_NS, 'netns', NS]);
    await run('ip', ['link', 'set', VETH_HOST, 'up']);
    await inNs('ip', 'addr', 'add', `${outside}/24`, 'dev', VETH_NS);
    await inNs('ip', 'link', 'set', VETH_NS, 'up');
    await run('ip', ['tuntap', 'add', 'dev', KEPT_TAP, 'mode', 'tap']);
    d = await startTestDaemon({ home, env: ENV });
    projectId = await createProject(d, 'cloud-lab');
  });
  after(async () => {
    for (const c of consoles) c.close();
    await d?.stop();
    await run('ip', ['netns', 'delete', NS]).catch(() => undefined);
    for (const name of linksStartingWith(`ecl${ID}`)) await run('ip', ['link', 'delete', name]).catch(() => undefined);
    removeHome(home);
  });

  it('VPCS and the outside host ping each other through the cloud; a capture on the cloud link shows the ICMP', async () => {
    const cloud = await createNode(d, projectId, 'Cloud1', 'cloud', {
      properties: {
        ports_mapping: [
          { name: 'outside', port_number: 0, type: 'ethernet', interface: VETH_HOST },
          { name: 'tap', port_number: 1, type: 'tap', interface: TAP },
          { name: 'kept', port_number: 2, type: 'tap', interface: KEPT_TAP },
        ],
      },
    });
    assert.equal(cloud.status, 'started');
    assert.deepEqual(cloud.ports.map((p: any) => p.name), ['outside', 'tap', 'kept']);
    assert.ok(cloud.properties.interfaces.some((i: any) => i.name === KEPT_TAP && i.type === 'tap'), 'interfaces lists the host\'s TAP');

    const pc = await createNode(d, projectId, 'PC1', 'vpcs');
    const link = await createLink(d, projectId, [pc.node_id, 0], [cloud.node_id, 0]);
    assert.equal((await d.api('POST', `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {})).status, 200);
    const c = await connectVpcsConsole('127.0.0.1', pc.console);
    consoles.push(c);
    await setIp(c, `${inside}/24`);

    const capture = await d.api('POST', `/v2/projects/${projectId}/links/${link.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    const out = await ping(c, outside, 3);
    assert.ok(out.received >= 2, `VPCS pings the outside host: ${JSON.stringify(out)}`);
    const { stdout } = await inNs('python3', '-c', PING, inside, '3');
    assert.ok(Number(stdout.trim()) >= 2, `the outside host pings the VPCS: ${stdout.trim()} of 3 replies`);

    const packets = await packetsOnceWritten(capture.body.capture_file_path, (n) => n >= 12);
    assert.ok(packets.some((p) => p.src === inside && p.dst === outside && p.type === 8), 'echo request from the VPCS');
    assert.ok(packets.some((p) => p.src === outside && p.dst === inside && p.type === 0), 'echo reply from outside');
    assert.ok(packets.some((p) => p.src === outside && p.dst === inside && p.type === 8), 'echo request from outside');
  });

  it('a TAP port makes its TAP while linked and removes it with the link; a TAP it found is left in place', async () => {
    const nodes = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body;
    const cloud = nodes.find((n: any) => n.name === 'Cloud1');
    const pc2 = await createNode(d, projectId, 'PC2', 'vpcs');
    const pc3 = await createNode(d, projectId, 'PC3', 'vpcs');
    assert.deepEqual(linksStartingWith(TAP), [], 'no TAP before a link');
    const l1 = await createLink(d, projectId, [pc2.node_id, 0], [cloud.node_id, 1]);
    await createLink(d, projectId, [pc3.node_id, 0], [cloud.node_id, 2]);
    assert.deepEqual(linksStartingWith(TAP), [TAP], 'the linked TAP port made its TAP');
    assert.equal((await d.api('DELETE', `/v2/projects/${projectId}/links/${l1.link_id}`)).status, 204);
    assert.deepEqual(linksStartingWith(TAP), [], 'the TAP went with the link');
    assert.equal((await d.api('DELETE', `/v2/projects/${projectId}/nodes/${cloud.node_id}`)).status, 204);
    assert.deepEqual(linksStartingWith(KEPT_TAP), [KEPT_TAP], 'the TAP the test made is still there');
    assert.deepEqual(linksStartingWith(VETH_HOST), [VETH_HOST], 'the veth is still there');
  });

  it('refuses a port on an interface that is not there with a 400 when it is linked, and an invalid name at create', async () => {
    const bad = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'Bad', node_type: 'cloud', properties: { ports_mapping: [{ name: 'x', port_number: 0, type: 'ethernet', interface: 'no such/if' }] } });
    assert.equal(bad.status, 400, bad.text);
    const cloud = await createNode(d, projectId, 'Cloud2', 'cloud', { properties: { ports_mapping: [{ name: 'gone', port_number: 0, type: 'ethernet', interface: `ecl${ID}x` }] } });
    const pc = await createNode(d, projectId, 'PC4', 'vpcs');
    const r = await d.api('POST', `/v2/projects/${projectId}/links`, { nodes: [{ node_id: pc.node_id, adapter_number: 0, port_number: 0 }, { node_id: cloud.node_id, adapter_number: 0, port_number: 0 }] });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.message, /no such interface/);
  });
});
