// The VLAN module (modules: [vlan]): the router-on-a-stick lab's addressing and configurations are
// their golden files; the LAN's switch has access and dot1q ports; bad VLANs are refused before
// anything is made, at FILE:LINE:COL in one line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatedFiles, renderAddressing, renderGeneratedFiles } from '../../../../src/lab/generated/configs.js';
import { parseLab } from '../../../../src/lab/parse.js';
import { assertGolden, fixtureLab, refusal } from './golden.js';

const LAB = (vlans: string, link: string, modules = '[vlan]') =>
  `name: x\nmodules: ${modules}\nvlans:\n${vlans}nodes:\n  R1: {device: frr}\n  H1: {device: linux}\n  H2: {device: linux}\nlinks:\n${link}`;
const TWO = '  red: {id: 10}\n  blue: {id: 20}\n';

describe('generated VLANs', () => {
  it('vlan-stick: the addressing and every generated file are their golden files', () => {
    const spec = fixtureLab('vlan-stick');
    assertGolden('vlan-stick.addressing.txt', renderAddressing(spec.generated!));
    assertGolden('vlan-stick.config.txt', renderGeneratedFiles(generatedFiles(spec)));
  });

  it('the LAN switch: member i on port i, access ports in their VLAN, trunks dot1q with native VLAN 1, the rest access VLAN 1', () => {
    const lan = fixtureLab('vlan-stick').nodes.find((n) => n.name === 'LAN1')!;
    assert.equal(lan.type, 'ethernet_switch');
    assert.deepEqual(lan.switchPorts!.map((p) => `${p.name} ${p.type} ${p.vlan}`), [
      'Ethernet0 dot1q 1', 'Ethernet1 access 10', 'Ethernet2 access 10', 'Ethernet3 access 20', 'Ethernet4 dot1q 1', 'Ethernet5 dot1q 1', 'Ethernet6 access 1', 'Ethernet7 access 1',
    ]);
  });

  it('a router on a trunk has a sub-interface per VLAN, made by its start command before FRR; each VLAN its own /24', () => {
    const spec = fixtureLab('vlan-stick');
    const r1 = spec.generated!.nodes.find((n) => n.name === 'R1')!;
    assert.deepEqual(r1.interfaces.map((i) => `${i.name} ${i.address[4] ? `${i.address[4].length}` : ''} ${i.hostLink}`), ['eth0 31 false', 'eth1.10 24 true', 'eth1.20 24 true']);
    const node = spec.nodes.find((n) => n.name === 'R1')!;
    assert.equal(node.cmd, "sh -c 'sh /etc/frr/vlans.sh; exec bash /etc/frr/emuctl-start.sh'");
    const h1 = spec.nodes.find((n) => n.name === 'H1')!;
    assert.equal(h1.ip, '198.19.0.2/24');
    // A lab without VLANs keeps FRR's plain start command.
    assert.equal(fixtureLab('ospf-triangle').nodes.find((n) => n.name === 'R1')!.cmd, 'bash /etc/frr/emuctl-start.sh');
  });

  it('BGP sees the VLANs as host LANs: a router on a trunk advertises each VLAN subnet it has hosts in', () => {
    const spec = parseLab(LAB(TWO, '  - {lan: [R1, H1, H2], vlan: {R1: [red, blue], H1: red, H2: blue}}\n', '[vlan, bgp]\nbgp: {as: 65001}'), 'lab.yml', {});
    const conf = generatedFiles(spec, 'R1').find((f) => f.path === '/etc/frr/frr.conf')!.text;
    assert.match(conf, /interface eth0\.10\n description hosts on LAN1 vlan red: H1\n ip address 172\.16\.0\.1\/24\n/);
    assert.match(conf, /interface eth0\.20\n description hosts on LAN1 vlan blue: H2\n ip address 172\.16\.1\.1\/24\n/);
    assert.match(conf, /  network 172\.16\.0\.0\/24\n  network 172\.16\.1\.0\/24\n/);
    const h2 = spec.generated!.nodes.find((n) => n.name === 'H2')!;
    assert.equal(h2.interfaces[0].name, 'eth0');
    assert.equal(`${h2.gateway[4]!.value}`, `${spec.generated!.nodes[0].interfaces[1].address[4]!.value}`);
  });

  it('the same file gives the same bytes', () => {
    const a = renderGeneratedFiles(generatedFiles(fixtureLab('vlan-stick')));
    assert.equal(renderGeneratedFiles(generatedFiles(fixtureLab('vlan-stick'))), a);
  });

  it('bad VLANs: unknown name, duplicate id, id outside 1-4094, trunk of VLAN 1, a VLAN on two LANs, no module', () => {
    assert.equal(refusal(LAB(TWO, '  - {lan: [R1, H1, H2], vlan: {R1: [red, green], H1: red, H2: blue}}\n')), 'lab.yml:11:42: unknown VLAN "green"; vlans: red, blue');
    assert.equal(refusal(LAB(TWO, '  - {lan: [R1, H1], vlan: grey}\n')), 'lab.yml:11:27: unknown VLAN "grey"; vlans: red, blue');
    assert.equal(refusal(LAB('  red: {id: 10}\n  blue: {id: 10}\n', '  - {lan: [R1, H1], vlan: red}\n')), 'lab.yml:5:14: VLAN blue has id 10, as VLAN red does: give each VLAN its own id');
    assert.equal(refusal(LAB('  red: {id: 4095}\n', '  - {lan: [R1, H1], vlan: red}\n')), 'lab.yml:4:13: VLAN red has id 4095: an 802.1Q VLAN id is 1-4094');
    assert.equal(refusal(LAB('  red: {id: 0}\n', '  - {lan: [R1, H1], vlan: red}\n')), 'lab.yml:4:13: VLAN red has id 0: an 802.1Q VLAN id is 1-4094');
    assert.equal(refusal(LAB('  red: {id: 1}\n  blue: {id: 20}\n', '  - {lan: [R1, H1, H2], vlan: {R1: [blue, red], H1: red, H2: blue}}\n')),
      "lab.yml:11:43: VLAN red (id 1) cannot be on a trunk: id 1 is a trunk port's native, untagged VLAN");
    assert.equal(refusal(LAB(TWO, '  - {lan: [R1, H1], vlan: red}\n  - {lan: [H2, R1], vlan: red}\n')), 'lab.yml:12:27: VLAN red is on the LAN of line 11 already: a VLAN is on one LAN (one switch)');
    assert.equal(refusal(LAB(TWO, '  - {lan: [R1, H1, H2], vlan: {R1: [red, blue], H1: red}}\n')), 'lab.yml:11:31: H2 has no VLAN on this link: give it one (H2: NAME) or a trunk (H2: [NAME, NAME])');
    assert.equal(refusal(LAB(TWO, '  - {lan: [R1, H1], vlan: {R1: red, H1: red, H9: red}}\n')), 'lab.yml:11:46: H9 is not on this link; its members: R1, H1');
    assert.equal(refusal(LAB(TWO, '  - {lan: [R1, H1], vlan: red}\n', '[ospf]')), 'lab.yml:3:1: vlans: is for the VLAN module: add vlan to modules: (modules: [vlan])');
    assert.equal(refusal('name: x\nnodes:\n  R1: {device: frr}\n  H1: {device: linux}\nlinks:\n  - {lan: [R1, H1], vlan: red}\n'),
      'lab.yml:6:21: vlan: is for the VLAN module: add vlan to modules: (modules: [vlan]) and the VLANs to vlans:');
    assert.match(refusal('name: x\nnodes:\n  PC1: {type: vpcs}\n  SW1: {type: ethernet_switch}\nlinks:\n  - {endpoints: [PC1:0/0, SW1:0], vlan: red}\n'), /^lab\.yml:6:35: vlan: is for links written with ends: or lan:/);
  });
});
