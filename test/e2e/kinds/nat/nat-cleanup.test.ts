// test-runner: serial (compares the host's whole iptables rule set before and after)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { removeHome, startTestDaemon, type TestDaemon } from '../../../helpers/daemon.js';
import { firewallRules, freeTestSubnet, linksStartingWith } from '../../../helpers/host-network.js';
import { createProject } from '../../../helpers/lab.js';
import { leasedVpcsBehindNat } from '../../../helpers/nat-lab.js';

const run = promisify(execFile);
const ENV = { EMUCTL_UDP_PORT_RANGE: '30600-30699', EMUCTL_CONSOLE_PORT_RANGE: '25300-25399' };
const ID = `${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
/** Look-alikes the test makes: emuctl's prefixes, not emuctl's. */
const FOREIGN_LINK = `emunatx${ID}`;
const FOREIGN_CHAIN = `EMUCTL-NAT-T${ID}`;

const dnsmasqOf = async (bridge: string) => (await run('pgrep', ['-f', `interface=${bridge}`]).catch(() => ({ stdout: '' }))).stdout.trim();
const natLinks = () => linksStartingWith('emunat', 'ent');

describe('NAT node cleanup: kill -9 and a restart remove exactly what the dead daemon made', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-natclean-'));
  let d: TestDaemon | undefined;
  let subnet: string;
  let foreignRule: string[];

  before(async () => {
    subnet = (await freeTestSubnet()).subnet;
    foreignRule = ['-s', subnet, '-m', 'comment', '--comment', `emuctl daemon pid ${process.pid} NAT`, '-j', 'RETURN'];
    await run('ip', ['link', 'add', 'name', FOREIGN_LINK, 'type', 'bridge']);
    await run('iptables', ['-w', '-t', 'nat', '-N', FOREIGN_CHAIN]);
    await run('iptables', ['-w', '-t', 'nat', '-A', 'POSTROUTING', ...foreignRule]);
  });
  after(async () => {
    await d?.stop();
    await run('ip', ['link', 'delete', FOREIGN_LINK]).catch(() => undefined);
    await run('iptables', ['-w', '-t', 'nat', '-D', 'POSTROUTING', ...foreignRule]).catch(() => undefined);
    await run('iptables', ['-w', '-t', 'nat', '-X', FOREIGN_CHAIN]).catch(() => undefined);
    removeHome(home);
  });

  it('after kill -9 the bridge, rules and dnsmasq outlive the daemon; its successor removes them and nothing else', async () => {
    const rulesBefore = await firewallRules();
    const linksBefore = natLinks();
    assert.ok(linksBefore.includes(FOREIGN_LINK));

    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: subnet } });
    const { console: c } = await leasedVpcsBehindNat(d, 'nat-crash');
    c.close();

    const bridge = `emunat${d.pid}`;
    const dnsmasq = await dnsmasqOf(bridge);
    assert.ok(dnsmasq, 'dnsmasq runs');
    assert.notEqual(await firewallRules(), rulesBefore);
    const journals = readdirSync(join(home, 'run')).filter((n) => n.startsWith('nat-host.'));
    assert.equal(journals.length, 1, 'the host changes are journalled in the run directory');

    d.child.kill('SIGKILL');
    await d.stop();
    assert.ok(natLinks().includes(bridge), 'the bridge outlived the daemon');
    assert.equal(await dnsmasqOf(bridge), dnsmasq, 'dnsmasq outlived the daemon');

    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: subnet } });
    assert.match(d.log(), /removed what a previous run's NAT nodes left on the host: .*interface emunat/);
    assert.equal(await dnsmasqOf(bridge), '', 'the leftover dnsmasq was stopped');
    assert.deepEqual(natLinks(), linksBefore, 'interfaces as before: the look-alike kept');
    assert.equal(await firewallRules(), rulesBefore, 'rule set as before: the look-alike rule and chain kept');
    assert.equal(existsSync(join(home, 'run', journals[0])), false, 'the journal is gone');
  });

  it('a subnet overlapping a host route is refused with 409 and leaves nothing behind', async () => {
    await d?.stop();
    const { stdout } = await run('ip', ['-4', '-o', 'route', 'show']);
    const taken = stdout.split('\n').map((l) => l.split(/\s+/)[0]).find((dest) => /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(dest) && Number(dest.split('/')[1]) <= 29);
    assert.ok(taken, `a host route to clash with:\n${stdout}`);
    const rulesBefore = await firewallRules();
    const linksBefore = natLinks();
    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: taken } });
    const projectId = await createProject(d, 'nat-clash');
    const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'NAT1', node_type: 'nat' });
    assert.equal(r.status, 409, r.text);
    assert.match(r.body.message, /overlaps the host route/);
    assert.doesNotMatch(r.body.message, /\n/);
    assert.deepEqual(natLinks(), linksBefore);
    assert.equal(await firewallRules(), rulesBefore);
  });

  it('a bridge or chain with this daemon\'s names that it did not make is refused (409) and left in place', async () => {
    await d?.stop();
    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: subnet } });
    const projectId = await createProject(d, 'nat-taken');
    const bridge = `emunat${d.pid}`;
    const chain = `EMUCTL-NAT-${d.pid}`;
    await run('ip', ['link', 'add', 'name', bridge, 'type', 'bridge']);
    try {
      const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'NAT1', node_type: 'nat' });
      assert.equal(r.status, 409, r.text);
      assert.match(r.body.message, /exists and is not this daemon's/);
      assert.ok(linksStartingWith(bridge).includes(bridge), 'the bridge it did not make is still there');
    } finally {
      await run('ip', ['link', 'delete', bridge]).catch(() => undefined);
    }
    const rulesBefore = await firewallRules();
    await run('iptables', ['-w', '-t', 'nat', '-N', chain]);
    try {
      const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'NAT1', node_type: 'nat' });
      assert.equal(r.status, 409, r.text);
      assert.match(r.body.message, new RegExp(`chain nat/${chain}: it exists and is not this daemon's`));
      assert.deepEqual(linksStartingWith(bridge), [], 'its own bridge was undone');
      await run('iptables', ['-w', '-t', 'nat', '-n', '-L', chain]);
    } finally {
      await run('iptables', ['-w', '-t', 'nat', '-X', chain]).catch(() => undefined);
    }
    assert.equal(await firewallRules(), rulesBefore);
  });

  it('without CAP_NET_ADMIN, nat and cloud answer 409 with one line, are not offered, and make nothing', async () => {
    await d?.stop();
    const rulesBefore = await firewallRules();
    const linksBefore = natLinks();
    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_NAT_SUBNET: subnet }, launcher: ['setpriv', '--inh-caps', '-net_admin', '--bounding-set', '-net_admin'] });
    const caps = (await d.api('GET', '/v2/compute/capabilities')).body;
    assert.ok(!caps.node_types.includes('nat') && !caps.node_types.includes('cloud'), JSON.stringify(caps));
    const projectId = await createProject(d, 'nat-nocap');
    for (const type of ['nat', 'cloud']) {
      const r = await d.api('POST', `/v2/projects/${projectId}/nodes`, { name: `${type}1`, node_type: type });
      assert.equal(r.status, 409, r.text);
      assert.match(r.body.message, /needs CAP_NET_ADMIN/);
      assert.doesNotMatch(r.body.message, /\n/);
    }
    assert.deepEqual(natLinks(), linksBefore);
    assert.equal(await firewallRules(), rulesBefore);
  });
});
