// Management networks on the real host and Docker engine: two projects with disjoint subnets, docker
// nodes addressed before their command runs and reachable from the host, no management frame on a
// data link, and nothing left on the host after a project delete or a kill -9 and a restart.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { firewallRules, linksStartingWith } from '../helpers/host-network.js';
import { createNode, createProject } from '../helpers/lab.js';
import { frameCount } from '../helpers/tshark.js';

const run = promisify(execFile);
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const ENV = { EMUCTL_MGMT_RANGE: '198.19.128.0/17', EMUCTL_UDP_PORT_RANGE: '25600-25699', EMUCTL_CONSOLE_PORT_RANGE: '25700-25799' };

/** The 8 hex digits of an id that emuctl's names for it carry. */
const short = (id: string) => id.replace(/-/g, '').slice(0, 8);

/**
 * What this feature added to the host for the given projects and nodes (their ids, found in the
 * names): interfaces, firewall lines, dnsmasq processes. Other engineers' labs may run meanwhile:
 * only this test's own ids are looked at.
 */
async function hostState(ids: Iterable<string>): Promise<{ links: string[]; rules: string[]; dnsmasq: string[] }> {
  const mine = (line: string) => [...ids].some((id) => line.includes(short(id)));
  const rules = (await firewallRules()).split('\n').filter((l) => /EMUCTL-MGMT|emuctl management/.test(l) && mine(l));
  const { stdout } = await run('ps', ['-eo', 'args']);
  return { links: linksStartingWith('emum', 'emuv').filter(mine), rules, dnsmasq: stdout.split('\n').filter((l) => l.startsWith('dnsmasq') && mine(l)) };
}
const NOTHING = { links: [], rules: [], dnsmasq: [] };

/** Milliseconds until the host's ping of `address` answers (polled, generous deadline for a loaded machine). */
async function pingableAfter(address: string, since: number, deadlineMs = 60_000): Promise<number> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const ok = await run('ping', ['-c', '1', '-W', '1', '-n', address]).then(() => true, () => false);
    if (ok) return Date.now() - since;
    if (Date.now() > end) throw new Error(`the host never reached ${address}`);
  }
}

async function exec(d: TestDaemon, projectId: string, nodeId: string, command: string[]): Promise<{ output: string; exit_code: number }> {
  const r = await d.api('POST', `/v2/projects/${projectId}/nodes/${nodeId}/exec`, { command, timeout: 30 });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

describe('management networks', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-mgmt-'));
  let d: TestDaemon;
  let image: string;
  const projects: string[] = [];

  before(async () => {
    image = await testImage('host');
    d = await startTestDaemon({ home, env: ENV });
  });
  after(async () => {
    await d?.stop();
    // Containers of this daemon's projects (labelled with it), whatever a failed test left.
    for (const c of await docker.listContainers({ all: true })) {
      if (projects.some((p) => Object.values(c.Labels ?? {}).includes(p))) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    }
    removeHome(home);
  });

  it('the API: PUT sets a network from the range, GET reads it, a project without one is a 404, bad input a 400', async () => {
    const p = await createProject(d, 'mgmt-api');
    projects.push(p);
    assert.equal((await d.api('GET', `/v2/projects/${p}/management`)).status, 404);
    const bad = await d.api('PUT', `/v2/projects/${p}/management`, { ipv4: '198.19.130.1/24' });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.message, /host bits/);
    assert.equal((await d.api('PUT', `/v2/projects/${p}/management`, { colour: 'red' })).status, 400);
    const put = await d.api('PUT', `/v2/projects/${p}/management`, { ipv6: false });
    assert.equal(put.status, 200, put.text);
    assert.match(put.body.ipv4.subnet, /^198\.19\.(1[2-9]\d|2[0-5]\d)\.0\/24$/);
    assert.equal(put.body.ipv4.gateway, put.body.ipv4.subnet.replace(/0\/24$/, '1'));
    assert.deepEqual({ ipv6: put.body.ipv6, interface: put.body.interface }, { ipv6: null, interface: 'mgmt0' });
    assert.deepEqual((await d.api('GET', `/v2/projects/${p}/management`)).body, put.body);
    assert.deepEqual((await d.api('PUT', `/v2/projects/${p}/management`, { ipv6: false })).body, put.body, 'asking again changes nothing');
    const vpcs = await createNode(d, p, 'PC', 'vpcs');
    assert.equal(vpcs.properties.mgmt_ipv4, undefined, 'only docker and qemu nodes get one');
    assert.equal((await d.api('DELETE', `/v2/projects/${p}/management`)).status, 204);
    assert.equal((await d.api('GET', `/v2/projects/${p}/management`)).status, 404);
    assert.equal((await d.api('DELETE', `/v2/projects/${p}`)).status, 204);
  });

  it('two projects: disjoint subnets; docker nodes addressed before their command, reached by the host; no management frame on a data link', async () => {
    const a = await createProject(d, 'mgmt-a');
    const b = await createProject(d, 'mgmt-b');
    projects.push(a, b);
    const netA = (await d.api('PUT', `/v2/projects/${a}/management`, {})).body;
    const netB = (await d.api('PUT', `/v2/projects/${b}/management`, {})).body;
    assert.notEqual(netA.ipv4.subnet, netB.ipv4.subnet);
    assert.notEqual(netA.ipv6.subnet, netB.ipv6.subnet);

    const startCommand = 'sh -c "ip -o addr show > /tmp/at-start; ip route > /tmp/routes; exec sleep 100000"';
    const r1 = await createNode(d, a, 'R1', 'docker', { properties: { image, adapters: 1, start_command: startCommand } });
    const r2 = await createNode(d, a, 'R2', 'docker', { properties: { image, adapters: 1, start_command: startCommand } });
    const r3 = await createNode(d, b, 'R3', 'docker', { properties: { image, adapters: 1, start_command: startCommand, mgmt_ipv4: netB.ipv4.gateway.replace(/1$/, '9') } });
    const prefixA = netA.ipv4.subnet.replace(/0\/24$/, '');
    assert.equal(r1.properties.mgmt_ipv4, `${prefixA}2/24`, 'the first node address, after the gateway');
    assert.equal(r2.properties.mgmt_ipv4, `${prefixA}3/24`, 'then the next, in creation order');
    assert.equal(r3.properties.mgmt_ipv4, `${netB.ipv4.gateway.replace(/1$/, '9')}/24`, 'a pinned address');
    assert.match(r1.properties.mgmt_ipv6, new RegExp(`^${netA.ipv6.subnet.replace(/::\/64$/, '')}::2/64$`));
    const taken = await d.api('POST', `/v2/projects/${a}/nodes`, { name: 'R9', node_type: 'docker', properties: { image, mgmt_ipv4: `${prefixA}2` } });
    assert.equal(taken.status, 409, taken.text);
    // The compute checks an address it is given directly as it checks a VM's: inside the subnet, not the gateway.
    const stray = await createNode(d, a, 'R8', 'docker', { properties: { image, adapters: 1, start_command: startCommand } });
    for (const address of ['10.99.0.5/24', `${netA.ipv4.gateway}/24`]) {
      const put = await d.api('PUT', `/v2/compute/projects/${a}/docker/nodes/${stray.node_id}`, { mgmt_ipv4: address });
      assert.equal(put.status, 200, put.text);
      const refused = await d.api('POST', `/v2/compute/projects/${a}/docker/nodes/${stray.node_id}/start`, {});
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.body.message, /is not a node address of the management network/);
    }
    assert.equal((await d.api('DELETE', `/v2/projects/${a}/nodes/${stray.node_id}`)).status, 204);

    const link = await d.api('POST', `/v2/projects/${a}/links`, { nodes: [{ node_id: r1.node_id, adapter_number: 0, port_number: 0 }, { node_id: r2.node_id, adapter_number: 0, port_number: 0 }] });
    assert.equal(link.status, 201, link.text);

    const timings: string[] = [];
    for (const [p, node] of [[a, r1], [a, r2], [b, r3]] as const) {
      const t0 = Date.now();
      const started = await d.api('POST', `/v2/projects/${p}/nodes/${node.node_id}/start`, {});
      assert.equal(started.status, 200, started.text);
      const address = String(started.body.properties.mgmt_ipv4).split('/')[0];
      timings.push(`${node.name} ${address}: ${await pingableAfter(address, t0)} ms from start request (${await pingableAfter(address, Date.now())} ms once up)`);
      const atStart = (await exec(d, p, node.node_id, ['cat', '/tmp/at-start'])).output;
      assert.match(atStart, new RegExp(`mgmt0\\s+inet ${address.replace(/\./g, '\\.')}/24`), 'the address was there when the command ran');
      const routes = (await exec(d, p, node.node_id, ['cat', '/tmp/routes'])).output;
      assert.doesNotMatch(routes, /default/, 'no route out');
    }
    console.log(`# host ping of each management address: ${timings.join('; ')}`);
    const capture = await d.api('POST', `/v2/projects/${a}/links/${link.body.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);

    // Traffic on both networks: data (eth0, addresses of the test's own) and management (node to node).
    await exec(d, a, r1.node_id, ['ip', 'addr', 'add', '198.19.200.1/24', 'dev', 'eth0']);
    await exec(d, a, r2.node_id, ['ip', 'addr', 'add', '198.19.200.2/24', 'dev', 'eth0']);
    assert.equal((await exec(d, a, r1.node_id, ['ping', '-c', '3', '-W', '5', '198.19.200.2'])).exit_code, 0, 'the data link works');
    assert.equal((await exec(d, a, r1.node_id, ['ping', '-c', '3', '-W', '5', `${prefixA}3`])).exit_code, 0, 'nodes reach each other on the management network');
    const otherLab = await exec(d, a, r1.node_id, ['ping', '-c', '1', '-W', '2', String(r3.properties.mgmt_ipv4).split('/')[0]]);
    assert.notEqual(otherLab.exit_code, 0, "another lab's management network is out of reach");
    assert.equal((await d.api('POST', `/v2/projects/${a}/links/${link.body.link_id}/stop_capture`, {})).status, 201);
    const pcap = join(home, 'projects', a, 'project-files', 'captures', capture.body.capture_file_name);
    assert.ok((await frameCount(pcap, 'icmp && ip.addr == 198.19.200.2')) >= 6, 'the capture holds the data pings');
    assert.equal(await frameCount(pcap, `ip.addr == ${netA.ipv4.subnet} || ipv6.addr == ${netA.ipv6.subnet}`), 0, 'no management frame on the data link');

    // Deleting a project removes its bridge and rules; the other project's stay.
    const bridgeA = `emum${a.replace(/-/g, '').slice(0, 8)}`;
    const bridgeB = `emum${b.replace(/-/g, '').slice(0, 8)}`;
    assert.ok(linksStartingWith(bridgeA).length === 1 && linksStartingWith(bridgeB).length === 1);
    assert.equal((await d.api('DELETE', `/v2/projects/${a}`)).status, 204);
    assert.deepEqual(linksStartingWith(bridgeA), []);
    assert.deepEqual(linksStartingWith(`emuv${r1.node_id.replace(/-/g, '').slice(0, 8)}`), []);
    assert.ok(!(await firewallRules()).includes(`EMUCTL-MGMT-${a.replace(/-/g, '').slice(0, 8)}`));
    assert.equal(linksStartingWith(bridgeB).length, 1);

    // kill -9 with project B up: the next start removes what the dead daemon left.
    assert.equal(await d.stop('SIGKILL'), null);
    assert.equal(linksStartingWith(bridgeB).length, 1, 'a killed daemon leaves its bridge behind');
    assert.notDeepEqual(await hostState([b, r3.node_id]), NOTHING, 'and its rules and veth: the check below can fail');
    d = await startTestDaemon({ home, env: ENV });
    const ids = [a, b, r1.node_id, r2.node_id, r3.node_id];
    assert.deepEqual(await hostState(ids), NOTHING, "interfaces, rules and dnsmasq processes of the test's ids: as before the test (none)");
    // The project reopened later gets the same subnet back.
    const opened = await d.api('POST', `/v2/projects/${b}/open`, {});
    assert.equal(opened.status, 201, opened.text);
    assert.deepEqual((await d.api('GET', `/v2/projects/${b}/management`)).body, netB);
    assert.equal((await d.api('DELETE', `/v2/projects/${b}`)).status, 204);
    assert.deepEqual(await hostState(ids), NOTHING, 'and after the reopened project is deleted');
  });
});
