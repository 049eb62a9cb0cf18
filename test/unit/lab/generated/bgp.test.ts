// The BGP module's output: an eBGP fabric and an AS with a route reflector (dual stack) are their golden files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatedFiles, renderGeneratedFiles } from '../../../../src/lab/generated/configs.js';
import { assertGolden, fixtureLab } from './golden.js';

const frrConf = (lab: string, node: string) => generatedFiles(fixtureLab(lab), node).find((f) => f.path === '/etc/frr/frr.conf')!.text;

describe('generated BGP', () => {
  it('bgp-fabric: every generated file is its golden file', () => {
    assertGolden('bgp-fabric.config.txt', renderGeneratedFiles(generatedFiles(fixtureLab('bgp-fabric'))));
  });

  it('ibgp-rr-ipv6: every generated file is its golden file', () => {
    assertGolden('ibgp-rr-ipv6.config.txt', renderGeneratedFiles(generatedFiles(fixtureLab('ibgp-rr-ipv6'))));
  });

  it('bgp-groups: every generated file is its golden file', () => {
    assertGolden('bgp-groups.config.txt', renderGeneratedFiles(generatedFiles(fixtureLab('bgp-groups'))));
  });

  it("groups: a node takes its group's AS, area and route reflector; its own setting wins; the lab's covers the rest", () => {
    assert.match(frrConf('bgp-groups', 'S1'), /^router bgp 65000$/m);
    assert.match(frrConf('bgp-groups', 'S2'), /^router bgp 65000$/m);
    const l1 = frrConf('bgp-groups', 'L1');
    assert.match(l1, /^router bgp 65001$/m);
    assert.match(l1, /^ ip ospf area 0\.0\.0\.1$/m);
    assert.match(l1, /  neighbor 198\.18\.0\.4 route-reflector-client\n/);
    const l2 = frrConf('bgp-groups', 'L2');
    assert.match(l2, / neighbor 198\.18\.0\.3 remote-as 65001\n/);
    assert.doesNotMatch(l2, /route-reflector-client/);
    const l3 = frrConf('bgp-groups', 'L3');
    assert.match(l3, /^router bgp 65003$/m);
    assert.doesNotMatch(l3, /area 0\.0\.0\.1/);
    assert.doesNotMatch(l3, /remote-as 65001$/m);
    assert.match(frrConf('bgp-groups', 'E1'), /^router bgp 65100$/m);
  });

  it('a spine peers eBGP with each leaf over the link, not with the other spine; the leaf advertises its loopback and host LAN', () => {
    const s1 = frrConf('bgp-fabric', 'S1');
    assert.equal(s1.match(/remote-as 6500[1-4]$/gm)?.length, 4);
    assert.doesNotMatch(s1, /remote-as 65000$/m);
    const l1 = frrConf('bgp-fabric', 'L1');
    assert.match(l1, /router bgp 65001\n bgp router-id 198\.18\.0\.3\n/);
    assert.match(l1, /  network 198\.18\.0\.3\/32\n  network 198\.19\.0\.0\/24\n/);
    assert.match(l1, / timers bgp 1 3\n/);
  });

  it('route reflector: clients peer with the reflector only; the reflector marks them as clients', () => {
    const r1 = frrConf('ibgp-rr-ipv6', 'R1');
    assert.match(r1, /  neighbor 198\.18\.0\.2 route-reflector-client\n/);
    assert.match(r1, /  neighbor 2001:db8:ff::2 route-reflector-client\n/);
    const r2 = frrConf('ibgp-rr-ipv6', 'R2');
    assert.match(r2, / neighbor 198\.18\.0\.1 remote-as 65000\n/);
    assert.doesNotMatch(r2, /neighbor 198\.18\.0\.3 /);
    const daemons = generatedFiles(fixtureLab('ibgp-rr-ipv6'), 'R2').find((f) => f.path === '/etc/frr/daemons')!.text;
    assert.match(daemons, /^bgpd=yes\nospfd=yes\nospf6d=yes$/m);
  });
});
