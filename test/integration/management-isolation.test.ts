// test-runner: serial (turns the host's IPv6 forwarding on for a while, and compares the host's iptables and ip6tables rule sets before and after)
// A management network is isolated in IPv4 and IPv6 alike (nothing forwarded between its bridge and
// another host interface, while the gateway answers), a lab that asks for `nat` gets an IPv4 route
// out (masqueraded), and every iptables and ip6tables rule is gone after a project delete and after
// a kill -9 and a restart. The "outside" is a netns of the test's own behind a veth of the host, with
// a 198.18.x.0/24 and a ULA of its own: no traffic leaves the machine.
// (Bad `nat` values and a compute that forbids a route out: management-nat-refusals.test.ts, not serial.)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { freeTestSubnet, linksStartingWith } from '../helpers/host-network.js';
import { createNode, createProject } from '../helpers/lab.js';

const run = promisify(execFile);
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const ENV = { EMUCTL_MGMT_RANGE: '198.19.64.0/18', EMUCTL_UDP_PORT_RANGE: '21200-21224', EMUCTL_CONSOLE_PORT_RANGE: '21225-21249' };
const IPV6_FORWARDING = '/proc/sys/net/ipv6/conf/all/forwarding';

const short = (id: string) => id.replace(/-/g, '').slice(0, 8);

/**
 * One family's whole rule set (iptables-save or ip6tables-save, nat table listed first so it shows),
 * without counters and comment lines, less the lines of other emuctl daemons (other engineers' labs
 * may run meanwhile): every line that is not emuctl's, and every emuctl line naming one of `ids`.
 */
async function rules(family: 4 | 6, ids: string[]): Promise<string[]> {
  const [tables, save] = family === 4 ? ['iptables', 'iptables-save'] : ['ip6tables', 'ip6tables-save'];
  await run(tables, ['-w', '-t', 'nat', '-n', '-L']);
  const { stdout } = await run(save);
  return stdout.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.replace(/\[\d+:\d+\]/, ''))
    .filter((l) => !/EMUCTL|emuctl/.test(l) || ids.some((id) => l.includes(short(id))));
}

/** Packets the DROP rules of a project's isolation chain counted, in one family. */
async function dropped(family: 4 | 6, projectId: string): Promise<number> {
  const { stdout } = await run(family === 4 ? 'iptables' : 'ip6tables', ['-w', '-n', '-v', '-x', '-L', `EMUCTL-MGMT-${short(projectId)}`]);
  return stdout.split('\n').filter((l) => /\bDROP\b/.test(l)).reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[0]), 0);
}

describe('management network isolation and route out', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-mgmt-iso-'));
  const tag = randomBytes(3).toString('hex');
  const NS = `emuctl-t-${tag}`;
  // Not emuctl's prefix (emu): a route out goes to any host interface but emuctl's own.
  const VETH = `tmi${tag}h`;
  const VETH_NS = `tmi${tag}n`;
  const ula = `fd7e:${tag.slice(0, 4)}:${tag.slice(4)}::`;
  let outside: { subnet: string; prefix: string };
  let d: TestDaemon;
  let image: string;
  const projects: string[] = [];
  const nodes: string[] = [];
  let before4: string[];
  let before6: string[];
  let forwarding6: string | undefined;
  const inNs = (...args: string[]) => run('ip', ['netns', 'exec', NS, ...args]);

  before(async () => {
    // The image script takes seconds: it runs while the outside is made and the daemon starts (awaited below, its failure too).
    const hostImage = testImage('host');
    hostImage.catch(() => undefined);
    [outside, before4, before6] = await Promise.all([freeTestSubnet(), rules(4, []), rules(6, [])]);
    await run('ip', ['netns', 'add', NS]);
    await run('ip', ['link', 'add', VETH, 'type', 'veth', 'peer', 'name', VETH_NS]);
    await run('ip', ['link', 'set', VETH_NS, 'netns', NS]);
    await run('ip', ['addr', 'add', `${outside.prefix}.1/24`, 'dev', VETH]);
    await run('ip', ['-6', 'addr', 'add', `${ula}1/64`, 'dev', VETH, 'nodad']);
    await run('ip', ['link', 'set', VETH, 'up']);
    await inNs('ip', 'addr', 'add', `${outside.prefix}.2/24`, 'dev', VETH_NS);
    await inNs('ip', '-6', 'addr', 'add', `${ula}2/64`, 'dev', VETH_NS, 'nodad');
    await inNs('ip', 'link', 'set', VETH_NS, 'up');
    await inNs('ip', 'link', 'set', 'lo', 'up');
    d = await startTestDaemon({ home, env: ENV });
    image = await hostImage;
  });
  after(async () => {
    if (forwarding6 !== undefined) writeFileSync(IPV6_FORWARDING, forwarding6);
    await d?.stop();
    for (const c of await docker.listContainers({ all: true })) {
      if (projects.some((p) => Object.values(c.Labels ?? {}).includes(p))) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    }
    await run('ip', ['link', 'delete', VETH]).catch(() => undefined);
    await run('ip', ['netns', 'delete', NS]).catch(() => undefined);
    removeHome(home);
  });

  async function exec(projectId: string, nodeId: string, ...command: string[]): Promise<{ output: string; exit_code: number }> {
    const r = await d.api('POST', `/v2/projects/${projectId}/nodes/${nodeId}/exec`, { command, timeout: 120 });
    assert.equal(r.status, 200, r.text);
    return r.body;
  }

  /** A project with a management network (made one at a time: the subnet choice looks at the other projects' networks). */
  async function labWith(name: string, body: Record<string, unknown>): Promise<{ project: string; net: any }> {
    const project = await createProject(d, name);
    projects.push(project);
    const put = await d.api('PUT', `/v2/projects/${project}/management`, body);
    assert.equal(put.status, 200, put.text);
    return { project, net: put.body };
  }

  /** The lab's one docker node, started (the two labs' nodes start at the same time). */
  async function withNode(lab: { project: string; net: any }, name: string): Promise<{ project: string; node: any; net: any }> {
    const startCommand = 'sh -c "ip route > /tmp/routes; exec sleep 100000"';
    const node = await createNode(d, lab.project, `${name}-R1`, 'docker', { properties: { image, adapters: 0, start_command: startCommand } });
    nodes.push(node.node_id);
    const started = await d.api('POST', `/v2/projects/${lab.project}/nodes/${node.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    return { ...lab, node: started.body };
  }

  it('isolated by default in IPv4 and IPv6; with nat an IPv4 route out, masqueraded; nothing left after delete and kill -9', async () => {
    const isoLab = await labWith('mgmt-iso', {});
    const natLab = await labWith('mgmt-nat', { nat: true });
    const [iso, nat] = await Promise.all([withNode(isoLab, 'mgmt-iso'), withNode(natLab, 'mgmt-nat')]);
    assert.equal(iso.net.nat, false);
    assert.equal(nat.net.nat, true);
    assert.ok(iso.net.ipv6 && nat.net.ipv6, 'both have IPv6');
    const gw4 = iso.net.ipv4.gateway;
    const gw6 = iso.net.ipv6.gateway;

    // The outside knows the way back to the isolated lab (so only the firewall can stop its traffic) and not to the NAT lab's subnet.
    await inNs('ip', 'route', 'add', iso.net.ipv4.subnet, 'via', `${outside.prefix}.1`);
    await inNs('ip', '-6', 'route', 'add', iso.net.ipv6.subnet, 'via', `${ula}1`);
    const nsRoutes = (await inNs('ip', 'route')).stdout;
    assert.ok(!nsRoutes.includes(nat.net.ipv4.subnet.split('/')[0]) && !/default/.test(nsRoutes), nsRoutes);

    // The isolated lab: no route out, but the gateway answers; a route the node adds itself leads nowhere.
    assert.doesNotMatch((await exec(iso.project, iso.node.node_id, 'cat', '/tmp/routes')).output, /default/);
    assert.equal((await exec(iso.project, iso.node.node_id, 'ping', '-c', '1', '-W', '5', gw4)).exit_code, 0, 'the gateway answers (IPv4)');
    assert.equal((await exec(iso.project, iso.node.node_id, 'ping', '-6', '-c', '1', '-W', '5', gw6)).exit_code, 0, 'the gateway answers (IPv6)');
    assert.equal((await exec(iso.project, iso.node.node_id, 'ip', 'route', 'add', outside.subnet, 'via', gw4)).exit_code, 0);
    assert.equal((await exec(iso.project, iso.node.node_id, 'ip', '-6', 'route', 'add', `${ula}/64`, 'via', gw6)).exit_code, 0);
    const drop4 = await dropped(4, iso.project);
    assert.notEqual((await exec(iso.project, iso.node.node_id, 'ping', '-c', '2', '-W', '2', `${outside.prefix}.2`)).exit_code, 0, 'IPv4 is not forwarded out');
    assert.ok((await dropped(4, iso.project)) > drop4, 'dropped by the isolation chain, not lost on the way');

    // IPv6 forwarding on (the host's own setting put back after): only ip6tables stands between the bridge and the veth.
    forwarding6 = readFileSync(IPV6_FORWARDING, 'utf8').trim();
    writeFileSync(IPV6_FORWARDING, '1');
    try {
      // The isolated lab's pings out, counted by its chain, and the NAT lab's (its own chain) at the same time.
      await Promise.all([
        (async () => {
          const drop6 = await dropped(6, iso.project);
          assert.notEqual((await exec(iso.project, iso.node.node_id, 'ping', '-6', '-c', '2', '-W', '2', `${ula}2`)).exit_code, 0, 'IPv6 is not forwarded out');
          assert.ok((await dropped(6, iso.project)) > drop6, 'dropped by the ip6tables isolation chain');
        })(),
        (async () => {
          // The NAT lab's route out is IPv4 only.
          assert.equal((await exec(nat.project, nat.node.node_id, 'ip', '-6', 'route', 'add', `${ula}/64`, 'via', nat.net.ipv6.gateway)).exit_code, 0);
          assert.notEqual((await exec(nat.project, nat.node.node_id, 'ping', '-6', '-c', '2', '-W', '2', `${ula}2`)).exit_code, 0, 'no IPv6 route out even with nat');
        })(),
      ]);
      // And from the outside in (after the count above, which it would add to).
      assert.notEqual((await inNs('ping', '-6', '-c', '1', '-W', '2', String(iso.node.properties.mgmt_ipv6).split('/')[0]).then(() => 0, () => 1)), 0, 'IPv6 is not forwarded in');
    } finally {
      writeFileSync(IPV6_FORWARDING, forwarding6);
      forwarding6 = undefined;
    }
    // Independent probes, at the same time: IPv4 from the outside in, and the NAT lab's way out.
    const [inward, routes, out, across] = await Promise.all([
      inNs('ping', '-c', '1', '-W', '2', String(iso.node.properties.mgmt_ipv4).split('/')[0]).then(() => 0, () => 1),
      exec(nat.project, nat.node.node_id, 'cat', '/tmp/routes'),
      exec(nat.project, nat.node.node_id, 'ping', '-c', '2', '-W', '5', `${outside.prefix}.2`),
      exec(nat.project, nat.node.node_id, 'ping', '-c', '1', '-W', '2', String(iso.node.properties.mgmt_ipv4).split('/')[0]),
    ]);
    assert.notEqual(inward, 0, 'IPv4 is not forwarded in');
    // The NAT lab: a default route through the gateway before the command ran, and the outside reached
    // though it has no route back to the lab's subnet (checked above): its replies went to the host's address, masqueraded.
    assert.match(routes.output, new RegExp(`^default via ${nat.net.ipv4.gateway.replace(/\./g, '\\.')} dev mgmt0\\s+metric 1000`, 'm'));
    assert.equal(out.exit_code, 0, `the NAT lab reaches the outside: ${out.output}`);
    // Another lab's management network is still out of reach from the NAT lab.
    assert.notEqual(across.exit_code, 0, "another lab's management network is out of reach");

    // Deleting a project removes its rules of both families; kill -9 and a restart removes the other's.
    const ids = [...projects, ...nodes];
    assert.equal((await d.api('DELETE', `/v2/projects/${iso.project}`)).status, 204);
    assert.ok(!(await rules(6, ids)).some((l) => l.includes(short(iso.project))), 'no ip6tables rule of the deleted project');
    assert.ok(!(await rules(4, ids)).some((l) => l.includes(short(iso.project))), 'no iptables rule of the deleted project');
    assert.equal(await d.stop('SIGKILL'), null);
    assert.ok((await rules(4, ids)).some((l) => l.includes(`EMUCTL-MGMT-NAT-${short(nat.project)}`)), 'a killed daemon leaves its MASQUERADE: the check below can fail');
    assert.ok((await rules(6, ids)).some((l) => l.includes(`EMUCTL-MGMT-${short(nat.project)}`)), 'and its ip6tables chain');
    d = await startTestDaemon({ home, env: ENV });
    assert.deepEqual(await rules(4, ids), before4, 'iptables-save as before the test');
    assert.deepEqual(await rules(6, ids), before6, 'ip6tables-save as before the test');
    assert.deepEqual(linksStartingWith(`emum${short(nat.project)}`, `emum${short(iso.project)}`), []);
    assert.equal((await d.api('DELETE', `/v2/projects/${nat.project}`)).status, 204);
  });
});
