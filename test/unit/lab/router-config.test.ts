import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareConfig, configFacts, describeMissing } from '../../../src/lab/router-config.js';

const FRR_CONF = `! R1
frr defaults traditional
hostname R1
service integrated-vtysh-config
!
interface lo
 ip address 198.18.0.1/32
 ip ospf area 0
!
interface eth0
 description to R2
 ip address 198.19.0.1/30
 ipv6 address 2001:db8::1/64
 ip ospf area 0
!
router ospf
 ospf router-id 198.18.0.1
!
`;

/** What FRR 8.4's \`show running-config\` prints for that file (blocks end with exit). */
const RUNNING = `Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults traditional
hostname R1
service integrated-vtysh-config
!
interface eth0
 description to R2
 ip address 198.19.0.1/30
 ip ospf area 0
 ipv6 address 2001:db8::1/64
exit
!
interface lo
 ip address 198.18.0.1/32
 ip ospf area 0
exit
!
router ospf
 ospf router-id 198.18.0.1
exit
!
end
`;
const MARK = '===emuctl-running-config===';
const LINKS_MARK = '===emuctl-interfaces===';

describe('router-config: does a router run what its frr.conf asks', () => {
  it('takes the hostname, each interface address and each router section from a configuration', () => {
    assert.deepEqual(configFacts(FRR_CONF), [
      'hostname R1', 'interface lo: ip address 198.18.0.1/32', 'interface eth0: ip address 198.19.0.1/30',
      'interface eth0: ipv6 address 2001:db8::1/64', 'router ospf',
    ]);
  });

  it('finds a loaded configuration complete whatever the order of the running one', () => {
    assert.deepEqual(compareConfig(`${FRR_CONF}${MARK}\n${RUNNING}`), { ok: true, missing: [] });
  });

  it('names what a router never loaded: the empty running configuration of a killed vtysh -b', () => {
    const empty = 'Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\nfrr defaults traditional\nhostname 5f3a9c\n!\nend\n';
    const result = compareConfig(`${FRR_CONF}${MARK}\n${empty}`);
    assert.equal(result.ok, false);
    assert.deepEqual(result.missing, configFacts(FRR_CONF));
    assert.equal(describeMissing('R1', result), 'R1: lacks hostname R1, interface lo: ip address 198.18.0.1/32, interface eth0: ip address 198.19.0.1/30 and 2 more');
  });

  it('an address on another interface does not count', () => {
    const moved = RUNNING.replace('interface eth0\n description to R2\n ip address 198.19.0.1/30', 'interface eth0\n description to R2\nexit\ninterface eth1\n ip address 198.19.0.1/30');
    assert.deepEqual(compareConfig(`${FRR_CONF}${MARK}\n${moved}`).missing, ['interface eth0: ip address 198.19.0.1/30', 'interface eth0: ipv6 address 2001:db8::1/64']);
  });

  it('vtysh failing (daemons not up) is not configured', () => {
    const r = compareConfig(`${FRR_CONF}${MARK}\nExiting: failed to connect to any daemons.\n`);
    assert.equal(r.ok, false);
    assert.equal(r.missing.length, 5);
  });

  it('an interface frr.conf configures that the container does not have is named (FRR keeps its addresses anyway)', () => {
    const conf = FRR_CONF.replace('router ospf', 'interface eth1.10\n ip address 198.19.10.1/24\n!\nrouter ospf');
    const running = RUNNING.replace('router ospf', 'interface eth1.10\n ip address 198.19.10.1/24\nexit\n!\nrouter ospf');
    assert.deepEqual(compareConfig(`${conf}${MARK}\n${running}${LINKS_MARK}\neth0\neth1\nlo\n`), {
      ok: false, missing: ['interface eth1.10 (no such interface in the container)'],
    });
    assert.deepEqual(compareConfig(`${conf}${MARK}\n${running}${LINKS_MARK}\neth0\neth1\neth1.10\nlo\n`), { ok: true, missing: [] });
  });
});
