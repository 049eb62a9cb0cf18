// test-runner: serial (compares the host's whole iptables rule set before and after)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { connectVpcsConsole, ping, type VpcsConsole } from '../../../../src/client/vpcs-console.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { firewallRules, freeTestSubnet, linksStartingWith } from '../../../helpers/host-network.js';
import { createLink, createNode, createProject } from '../../../helpers/lab.js';

const run = promisify(execFile);
const ENV = { EMUCTL_UDP_PORT_RANGE: '30400-30499', EMUCTL_CONSOLE_PORT_RANGE: '25100-25199' };

/** `ip dhcp` on a VPCS: the leased address, prefix length and gateway. */
async function dhcp(c: VpcsConsole): Promise<{ ip: string; prefix: number; gateway: string; output: string }> {
  const output = await c.run('ip dhcp', { timeoutMs: 30_000 });
  const m = /IP (\d+\.\d+\.\d+\.\d+)\/(\d+) GW (\d+\.\d+\.\d+\.\d+)/.exec(output);
  assert.ok(m, `VPCS got a lease: ${output}`);
  return { ip: m[1], prefix: Number(m[2]), gateway: m[3], output };
}

describe('NAT node: a VPCS gets a DHCP lease, pings the gateway and reaches a host TCP service; everything made is removed', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-nat-'));
  let d: TestDaemon;
  let projectId: string;
  let subnet: { subnet: string; prefix: string };
  let rulesBefore: string;
  let server: Server;
  const accepted: Socket[] = [];
  const consoles: VpcsConsole[] = [];

  before(async () => {
    subnet = await freeTestSubnet();
    rulesBefore = await firewallRules();
    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: subnet.subnet } });
    projectId = await createProject(d, 'nat-lab');
  });
  after(async () => {
    for (const c of consoles) c.close();
    for (const s of accepted) s.destroy();
    server?.close();
    await d.stop();
    removeHome(home);
  });

  it('lists nat among the node types this root daemon can run', async () => {
    const caps = await d.api('GET', '/v2/compute/capabilities');
    assert.ok(caps.body.node_types.includes('nat'), JSON.stringify(caps.body));
  });

  it('leases an address to a linked VPCS, which pings the gateway and connects to a TCP server on the bridge address', async () => {
    const nat = await createNode(d, projectId, 'NAT1', 'nat');
    assert.equal(nat.status, 'started');
    assert.deepEqual(nat.ports.map((p: any) => p.name), ['nat0']);
    const bridge = `emunat${d.pid}`;
    assert.deepEqual(linksStartingWith(bridge), [bridge], 'the daemon made its bridge');
    const { stdout: addr } = await run('ip', ['-4', '-o', 'addr', 'show', 'dev', bridge]);
    assert.match(addr, new RegExp(`inet ${subnet.prefix.replace(/\./g, '\\.')}\\.1/24`));

    const pc = await createNode(d, projectId, 'PC1', 'vpcs');
    await createLink(d, projectId, [pc.node_id, 0], [nat.node_id, 0]);
    const started = await d.api('POST', `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const c = await connectVpcsConsole('127.0.0.1', pc.console);
    consoles.push(c);

    const lease = await dhcp(c);
    assert.equal(lease.gateway, `${subnet.prefix}.1`, lease.output);
    assert.ok(lease.ip.startsWith(`${subnet.prefix}.`) && lease.prefix === 24, lease.output);

    const pinged = await ping(c, lease.gateway, 3);
    assert.ok(pinged.received >= 2, `pings the NAT gateway: ${JSON.stringify(pinged)}`);

    // A TCP service on the host, addressed by the host's own address on the bridge side.
    const peers: string[] = [];
    server = createServer((s) => {
      accepted.push(s);
      peers.push(s.remoteAddress ?? '');
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, lease.gateway, resolve));
    const port = (server.address() as { port: number }).port;
    const out = await c.run(`ping ${lease.gateway} -P 6 -p ${port} -c 2`, { timeoutMs: 20_000 });
    assert.match(out, new RegExp(`Connect\\s+${port}@${lease.gateway.replace(/\./g, '\\.')}`), `VPCS connects over TCP: ${out}`);
    assert.ok(peers.includes(lease.ip), `the host's server saw the VPCS's leased address (${peers.join(', ')})`);
  });

  it('a second NAT node shares the bridge; removing it leaves the first one working', async () => {
    const nat2 = await createNode(d, projectId, 'NAT2', 'nat');
    assert.deepEqual(linksStartingWith('emunat').filter((n) => n.startsWith(`emunat${d.pid}`)), [`emunat${d.pid}`]);
    const del = await d.api('DELETE', `/v2/projects/${projectId}/nodes/${nat2.node_id}`);
    assert.equal(del.status, 204, del.text);
    const pinged = await ping(consoles[0], `${subnet.prefix}.1`, 2);
    assert.ok(pinged.received >= 1, JSON.stringify(pinged));
  });

  it('stopping the NAT node takes the host side down; starting it brings it back and leases again', async () => {
    const nat = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body.find((n: any) => n.name === 'NAT1');
    const stopped = await d.api('POST', `/v2/projects/${projectId}/nodes/${nat.node_id}/stop`, {});
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(stopped.body.status, 'stopped');
    assert.deepEqual(linksStartingWith(`emunat${d.pid}`, `ent${nat.node_id.slice(0, 8)}`), [], 'bridge and TAP gone');
    assert.equal(await firewallRules(), rulesBefore, 'rules gone');
    const started = await d.api('POST', `/v2/projects/${projectId}/nodes/${nat.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal(started.body.status, 'started');
    assert.deepEqual(linksStartingWith(`emunat${d.pid}`, `ent${nat.node_id.slice(0, 8)}`), [`emunat${d.pid}`, `ent${nat.node_id.slice(0, 8)}0`].sort());
    const lease = await dhcp(consoles[0]);
    assert.equal(lease.gateway, `${subnet.prefix}.1`);
  });

  it('closing the project removes the bridge, the TAP, dnsmasq and every firewall rule it added', async () => {
    const dnsmasqBefore = (await run('pgrep', ['-f', `interface=emunat${d.pid}`]).catch(() => ({ stdout: '' }))).stdout.trim();
    assert.ok(dnsmasqBefore, 'dnsmasq runs for the bridge');
    assert.notEqual(await firewallRules(), rulesBefore, 'the NAT rules are in place');
    const closed = await d.api('POST', `/v2/projects/${projectId}/close`);
    assert.equal(closed.status, 204, closed.text);
    assert.deepEqual(linksStartingWith(`emunat${d.pid}`), [], 'bridge removed');
    assert.equal(await firewallRules(), rulesBefore, 'iptables rule set as before');
    const dnsmasqAfter = (await run('pgrep', ['-f', `interface=emunat${d.pid}`]).catch(() => ({ stdout: '' }))).stdout.trim();
    assert.equal(dnsmasqAfter, '', 'dnsmasq stopped');
  });
});
