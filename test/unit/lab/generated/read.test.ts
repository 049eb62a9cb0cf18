// Bad generated labs are refused before anything is made: FILE:LINE:COL and one line each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLab } from '../../../../src/lab/parse.js';
import { refusal } from './golden.js';

describe('generated labs: bad input', () => {
  it('overlapping pools, at the later pool', () => {
    assert.equal(refusal('name: x\naddressing:\n  loopback: 10.0.0.0/16\n  p2p: 10.0.4.0/24\nnodes:\n  R1: {device: frr}\n'),
      'lab.yml:4:8: the loopback pool 10.0.0.0/16 and the p2p pool 10.0.4.0/24 overlap');
    assert.match(refusal("name: x\naddressing:\n  ipv6: {loopback: 'fd00::/64', p2p: '2001:db8::/32', lan: '2001:db8:5::/48'}\nnodes:\n  R1: {device: frr}\n"), /^lab\.yml:3:\d+: the p2p pool 2001:db8::\/32 and the lan pool 2001:db8:5::\/48 overlap$/);
  });

  it('an AS missing on a BGP router, at the node', () => {
    assert.equal(refusal('name: x\nmodules: [bgp]\nnodes:\n  R1: {device: frr, bgp: {as: 1}}\n  R2: {device: frr}\nlinks:\n  - [R1, R2]\n'),
      'lab.yml:5:3: R2 runs BGP (modules: [bgp]) but has no AS: give it bgp: {as: N}, put it in a group with one (groups: {NAME: {members: [R2], bgp: {as: N}}}), or give the lab a default bgp: {as: N}');
  });

  it('a link to an unknown node, or to a node that is not a device, at the link end', () => {
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr}\nlinks:\n  - [R1, R9]\n'), 'lab.yml:5:10: link to unknown node "R9"; nodes: R1');
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr}\nlinks:\n  - {lan: [R1, R9, R1]}\n'), 'lab.yml:5:16: link to unknown node "R9"; nodes: R1');
    assert.match(refusal('name: x\nnodes:\n  R1: {device: frr}\n  PC1: {type: vpcs}\nlinks:\n  - [R1, PC1]\n'), /^lab\.yml:6:10: PC1 is not a device node/);
  });

  it('more links than a device has interfaces, at the first link end that finds none free', () => {
    const links = Array.from({ length: 9 }, () => '  - [R1, H1]\n').join('');
    assert.equal(refusal(`name: x\nnodes:\n  R1: {device: frr}\n  H1: {device: linux}\nlinks:\n${links}`),
      'lab.yml:14:10: H1 has no free interface for this link: a linux device has 8 (eth0-eth7), all taken');
  });

  it('other mistakes: a device with a type, a docker key on a device, a bad pin, a pool too small, an interface used twice', () => {
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr, type: docker}\n'), 'lab.yml:3:21: node R1 has device: and type:; give one');
    assert.match(refusal('name: x\nnodes:\n  R1: {device: frr, adapters: 3}\n'), /^lab\.yml:3:21: adapters: is not for device nodes/);
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr}\n  R2: {device: frr}\nlinks:\n  - {ends: [R1, R2], addresses: [10.9.0.0/31, 10.9.1.1/31]}\n'),
      "lab.yml:6:47: 10.9.1.1/31 is not in 10.9.0.0/31 with the link's other addresses");
    assert.equal(refusal('name: x\naddressing: {lan: 10.0.0.0/25}\nnodes:\n  R1: {device: frr}\n'), 'lab.yml:2:19: the lan pool 10.0.0.0/25 is smaller than one block (/24)');
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr}\n  R2: {device: frr}\nlinks:\n  - [R1:eth0, R2:eth0]\n  - [R1:eth0, R2]\n'), 'lab.yml:7:6: R1:eth0 is used twice');
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr}\nlinks:\n  - [R1]\n'), 'lab.yml:5:5: a link has at least two ends: device nodes ([R1, R2]) or ports ([PC1:0/0, SW1:0])');
    assert.match(refusal('name: x\nnodes:\n  PC1: {type: vpcs, loopback: 10.0.0.1/32}\n'), /^lab\.yml:3:21: loopback: is for device nodes/);
    assert.match(refusal('name: x\naddressing: {loopback: 10.0.0.0/30}\nnodes:\n  R1: {device: frr}\n  R2: {device: frr}\n  R3: {device: frr}\n  R4: {device: frr}\n'), /^lab\.yml:7:3: the IPv4 loopback pool 10\.0\.0\.0\/30 is used up/);
  });
});

describe('generated labs: bad groups', () => {
  const lab = (groups: string) => `name: x\nmodules: [bgp]\ngroups:\n${groups}nodes:\n  R1: {device: frr}\n  R2: {device: frr}\n  H1: {device: linux}\n  PC1: {type: vpcs}\nlinks:\n  - [R1, R2]\n`;

  it('an unknown member, at the member', () => {
    assert.equal(refusal(lab('  g: {members: [R1, R9], bgp: {as: 1}}\n')), 'lab.yml:4:21: group g: unknown node "R9"; nodes: R1, R2, H1, PC1');
    assert.equal(refusal(lab('  g: [R1, R9]\n  h: {members: [R2], bgp: {as: 1}}\n')), 'lab.yml:4:11: group g: unknown node "R9"; nodes: R1, R2, H1, PC1');
  });

  it('a node in two groups with different ASes, at its place in the later group', () => {
    assert.equal(refusal(lab('  a: {members: [R1, R2], bgp: {as: 65001}}\n  b:\n    members: [R2]\n    bgp: {as: 65002}\n')),
      'lab.yml:6:15: R2 is in group a with AS 65001 and in group b with AS 65002: two groups give R2 different values; take it out of one');
    assert.match(refusal('name: x\ngroups:\n  a: {members: [R1], ospf: {area: 1}}\n  b: {members: [R1], ospf: {area: 2}}\nnodes:\n  R1: {device: frr}\n'),
      /^lab\.yml:4:17: R1 is in group a with ospf area 1 and in group b with ospf area 2: /);
  });

  it('the same AS twice (area 0 and 0.0.0.0 too) is no conflict, and a node without an AS is one when its group gives none', () => {
    const spec = parseLab(lab('  a: {members: [R1, R2], bgp: {as: 65001}}\n  b: {members: [R1], bgp: {as: 65001}}\n'), 'lab.yml', {});
    assert.deepEqual(spec.generated!.nodes.filter((n) => n.role === 'router').map((n) => n.bgp.as), [65001, 65001]);
    parseLab('name: x\ngroups:\n  a: {members: [R1], ospf: {area: 0}}\n  b: {members: [R1], ospf: {area: 0.0.0.0}}\nnodes:\n  R1: {device: frr}\n', 'lab.yml', {});
    assert.match(refusal(lab('  a: [R1, R2]\n')), /^lab\.yml:6:3: R1 runs BGP \(modules: \[bgp\]\) but has no AS/);
  });

  it('settings on a host or a node that is not a device, a group in a group, a member twice, a group named as a node', () => {
    assert.equal(refusal(lab('  g: {members: [R1, H1], bgp: {as: 1}}\n')), 'lab.yml:4:21: H1 is a linux host: group g sets bgp:, which is for routers');
    assert.equal(refusal(lab('  g: {members: [PC1], ospf: {cost: 5}}\n')), 'lab.yml:4:17: PC1 is not a device node: group g sets ospf:, which is for device nodes (device: frr)');
    assert.equal(refusal(lab('  g: [R1]\n  h: [g, R2]\n')), 'lab.yml:5:7: g is a group: a group lists nodes, not groups');
    assert.equal(refusal(lab('  g: [R1, R1]\n')), 'lab.yml:4:11: R1 is in group g twice');
    assert.equal(refusal(lab('  R1: [R2]\n')), 'lab.yml:4:3: group R1 has the name of a node; give the group another name');
  });

  it('a group with an unknown key is a schema error', () => {
    assert.match(refusal(lab('  g: {members: [R1], isis: {area: 1}}\n')), /^lab\.yml:4:/);
  });
});
