// Labs as code with the host: `lab up` of a file with a NAT node and a cloud node, a VPCS
// leasing from the NAT node, an idempotent second `up`, `lab save` and `lab down`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, removeTempHome, runBin, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { firewallRules, freeTestSubnet, linksStartingWith } from '../helpers/host-network.js';

const PORTS = { EMUCTL_UDP_PORT_RANGE: '30800-30899', EMUCTL_CONSOLE_PORT_RANGE: '25400-25449' };
const TAP = `elb${(process.pid % 46656).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;

describe('labs as code: type nat and type cloud', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let subnet: { subnet: string; prefix: string };
  let rulesBefore: string;
  const emuctl = (...argv: string[]) => runBin(['--url', d.url, ...argv], env);

  before(async () => {
    subnet = await freeTestSubnet();
    rulesBefore = await firewallRules();
    d = await startTestDaemon({ env: { ...PORTS, EMUCTL_NAT_SUBNET: subnet.subnet } });
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-nat-'));
    env = cliEnv(home);
    writeFileSync(join(dir, 'out.yml'), `name: outside
nodes:
  NAT1: {type: nat}
  Cloud1: {type: cloud, ports: {0: {type: tap, interface: ${TAP}, name: lab-tap}}}
  PC1: {type: vpcs}
  PC2: {type: vpcs, ip: 198.18.2.10/24}
links:
  - [PC1:0/0, NAT1:nat0]
  - [PC2:0/0, Cloud1:lab-tap]
`);
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lab up makes the nodes and links; PC1 leases from NAT1; the cloud made its TAP', async () => {
    const up = await emuctl('lab', 'up', join(dir, 'out.yml'));
    assert.equal(up.code, 0, up.stderr);
    assert.deepEqual(linksStartingWith(TAP), [TAP], 'the cloud port made its TAP');
    const exec = await emuctl('node', 'exec', 'PC1', '-p', 'outside', '--', 'ip dhcp');
    assert.equal(exec.code, 0, exec.stderr);
    assert.match(exec.stdout, new RegExp(`IP ${subnet.prefix.replace(/\./g, '\\.')}\\.\\d+/24 GW ${subnet.prefix.replace(/\./g, '\\.')}\\.1`));
  });

  it('a second lab up changes nothing; lab save writes the nat and cloud nodes back', async () => {
    const again = await emuctl('lab', 'up', join(dir, 'out.yml'));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /No changes/);
    const saved = await emuctl('lab', 'save', 'outside');
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /NAT1:[\s\S]*type: nat/);
    assert.match(saved.stdout, new RegExp(`Cloud1:[\\s\\S]*type: cloud[\\s\\S]*interface: ${TAP}`));
  });

  it('lab down removes the TAP, the bridge and the rules', async () => {
    const down = await emuctl('lab', 'down', join(dir, 'out.yml'));
    assert.equal(down.code, 0, down.stderr);
    assert.deepEqual(linksStartingWith(TAP, `emunat${d.pid}`), []);
    assert.equal(await firewallRules(), rulesBefore);
  });
});
