import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { alwaysRefused, checkCloudInterfaces, HostInterfacePolicy } from '../../../src/daemon/compute/host-interface-policy.js';
import { tapName } from '../../../src/daemon/kinds/docker/container-interfaces.js';
import { NatHost } from '../../../src/daemon/kinds/nat/nat-host.js';
import { natTapName } from '../../../src/daemon/kinds/nat/nat-node.js';
import { resolveSettings } from '../../../src/daemon/settings.js';

const NODE_ID = '3f2a9c1e-0b7d-4e55-9a61-2d8f0c4b7e19';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe('host interface policy', () => {
  it('refuses the loopback and every interface emuctl makes (NAT bridge, NAT TAP, docker TAP), whatever the setting', () => {
    const bridge = new NatHost({ subnet: '198.18.99.0/24', runDir: tmpdir(), env: {}, log: quiet as never }).bridge;
    for (const name of ['lo', bridge, natTapName(NODE_ID, 0), tapName(NODE_ID, 3), 'emuanything']) {
      assert.ok(alwaysRefused(name), `${name} is always refused`);
      for (const policy of [new HostInterfacePolicy(), new HostInterfacePolicy([name, 'e*'])]) {
        assert.throws(() => policy.check(name, 'ports_mapping'), { name: 'InvalidError', message: new RegExp(`ports_mapping: interface ${name} is`) });
        assert.throws(() => policy.checkInUse(name, 'Cloud1 port x'), { name: 'ConflictError', message: new RegExp(`Cloud1 port x will not open its interface: ${name} is`) });
      }
    }
    assert.match(alwaysRefused('lo')!, /loopback/);
  });

  it('allows every other interface by default; cloud_interfaces narrows it to names and prefix*', () => {
    for (const name of ['eth0', 'ens3', 'entropy', 'emdx', 'tap0', 'br-lab']) assert.equal(new HostInterfacePolicy().refusal(name), undefined, name);
    const listed = new HostInterfacePolicy(['eth1', 'tap*']);
    assert.ok(listed.allows('eth1') && listed.allows('tap0') && listed.allows('tap-lab'));
    assert.throws(() => listed.check('eth0', 'ethernet_device'), { name: 'InvalidError', message: /eth0 is not among the host interfaces a cloud may use \(the cloud_interfaces setting: eth1, tap\*\)/ });
    assert.equal(new HostInterfacePolicy([]).allows('eth0'), false, 'an empty list allows nothing');
  });

  it('cloud_interfaces: from the environment and the config file; lo, emuctl\'s own and bad entries stop the start', async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-cloud-if-'));
    try {
      assert.equal((await resolveSettings({}, { EMUCTL_HOME: home })).cloudInterfaces, undefined);
      const fromEnv = await resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_CLOUD_INTERFACES: 'eth1, tap*' });
      assert.deepEqual(fromEnv.cloudInterfaces, ['eth1', 'tap*']);
      const config = join(home, 'daemon.json');
      writeFileSync(config, JSON.stringify({ cloud_interfaces: ['veth-lab'] }));
      assert.deepEqual((await resolveSettings({ config }, { EMUCTL_HOME: home })).cloudInterfaces, ['veth-lab']);
      await assert.rejects(resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_CLOUD_INTERFACES: 'eth0,lo' }), /EMUCTL_CLOUD_INTERFACES: 'lo' cannot be allowed: lo is the host's loopback/);
      await assert.rejects(resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_CLOUD_INTERFACES: 'emunat*' }), /cannot be allowed/);
      writeFileSync(config, JSON.stringify({ cloud_interfaces: ['a/b'] }));
      await assert.rejects(resolveSettings({ config }, { EMUCTL_HOME: home }), /config file: cloud_interfaces: 'a\/b' is not an interface name/);
      assert.throws(() => checkCloudInterfaces(['*'], 'x'), /not an interface name/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
