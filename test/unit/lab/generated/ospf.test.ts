// The OSPF module's output: the triangle's configurations are their golden file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatedFiles, renderGeneratedFiles } from '../../../../src/lab/generated/configs.js';
import { assertGolden, fixtureLab } from './golden.js';

describe('generated OSPF', () => {
  it('ospf-triangle: every generated file is its golden file', () => {
    assertGolden('ospf-triangle.config.txt', renderGeneratedFiles(generatedFiles(fixtureLab('ospf-triangle'))));
  });

  it('point-to-point between routers, passive towards hosts, link cost over the lab; only ospfd runs', () => {
    const spec = fixtureLab('ospf-triangle');
    const r2 = generatedFiles(spec, 'R2');
    const conf = r2.find((f) => f.path === '/etc/frr/frr.conf')!.text;
    assert.match(conf, /interface eth1\n description to R3\n ip address 198\.18\.64\.5\/30\n ip ospf area 0\.0\.0\.0\n ip ospf network point-to-point\n ip ospf hello-interval 1\n ip ospf dead-interval 4\n ip ospf cost 10\n/);
    assert.match(conf, /interface eth2\n description hosts on LAN1: H2 H3\n ip address 198\.19\.1\.1\/24\n ip ospf area 0\.0\.0\.0\n ip ospf passive\n!/);
    const daemons = r2.find((f) => f.path === '/etc/frr/daemons')!.text;
    assert.match(daemons, /^ospfd=yes$/m);
    assert.doesNotMatch(daemons, /bgpd|ospf6d/);
    assert.ok(spec.nodes.some((n) => n.name === 'LAN1' && n.type === 'ethernet_switch'));
  });
});
