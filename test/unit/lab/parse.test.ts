// Lab files: what a good file becomes, and where a bad one is wrong (file:line:col, exit 2),
// before anything is sent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXIT_USAGE } from '../../../src/client/errors.js';
import { LAB_FILE_SCHEMA } from '../../../src/lab/file-schema.js';
import { LabFileError } from '../../../src/lab/locate.js';
import { parseLab } from '../../../src/lab/parse.js';

const repo = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));

const GOOD = `name: two-sites
defaults: {compute: local}
nodes:
  SW1: {type: ethernet_switch, ports: {0-3: {vlan: 10}, 7: {type: dot1q}, 6: {type: qinq, vlan: 100, ethertype: 0x88A8}}}
  PC1: {type: vpcs, ip: 10.0.10.1/24, gateway: 10.0.10.254, dns: 10.0.10.53}
  PC2: {type: vpcs, ip: 10.0.10.2/24, compute: lab-b}
  HUB: {type: ethernet_hub, port_count: 4}
links:
  - [PC1:0/0, SW1:0/0]
  - {endpoints: [PC2:e0, SW1:Ethernet1], filters: {delay: 20, packet_loss: 1, bpf: "icmp\\n  arp  "}}
  - {endpoints: [HUB:3, SW1:0/5], filters: {delay: [10, 2], corrupt: 0}, suspend: true}
captures: [SW1:0/0-PC1:0/0]
`;

/** `lab.yml:LINE:COL` of the first `needle` in `text` (after `after`, when given). */
function where(text: string, needle: string, after = ''): string {
  const offset = text.indexOf(needle, after ? text.indexOf(after) : 0);
  assert.ok(offset >= 0, `${needle} in the text`);
  const before = text.slice(0, offset).split('\n');
  return `lab.yml:${before.length}:${before.at(-1)!.length + 1}`;
}

/** The error a changed copy of GOOD gives; its message must start with the place of `at` in the changed text. */
function errorOf(from: string, to: string, at?: string, after?: string): LabFileError {
  assert.ok(GOOD.includes(from), `test text holds ${from}`);
  const changed = GOOD.replace(from, to);
  try {
    parseLab(changed, 'lab.yml');
  } catch (err) {
    assert.ok(err instanceof LabFileError, String(err));
    assert.equal(err.exitCode, EXIT_USAGE);
    if (at !== undefined) assert.ok(err.message.startsWith(`${where(changed, at, after)}: `), `${err.message} at ${at}`);
    return err;
  }
  assert.fail(`no error for ${to}`);
}

describe('lab files', () => {
  it('a good file: switch ports filled to 8 with access VLAN 1, port names resolved, filters in GNS3 form, captures marked', () => {
    const lab = parseLab(GOOD, 'lab.yml');
    assert.equal(lab.name, 'two-sites');
    const sw = lab.nodes.find((n) => n.name === 'SW1')!;
    assert.equal(sw.switchPorts!.length, 8);
    assert.deepEqual(sw.switchPorts![0], { port: 0, name: 'Ethernet0', type: 'access', vlan: 10 });
    assert.deepEqual(sw.switchPorts![4], { port: 4, name: 'Ethernet4', type: 'access', vlan: 1 });
    assert.deepEqual(sw.switchPorts![6], { port: 6, name: 'Ethernet6', type: 'qinq', vlan: 100, ethertype: '0x88A8' });
    assert.deepEqual(sw.switchPorts![7], { port: 7, name: 'Ethernet7', type: 'dot1q', vlan: 1 });
    const pc2 = lab.nodes.find((n) => n.name === 'PC2')!;
    assert.deepEqual([pc2.compute, lab.nodes.find((n) => n.name === 'PC1')!.compute], ['lab-b', 'local']);
    assert.deepEqual(lab.nodes.find((n) => n.name === 'PC1')!, { ...lab.nodes.find((n) => n.name === 'PC1')!, ip: '10.0.10.1/24', gateway: '10.0.10.254', dns: '10.0.10.53' });
    assert.equal(lab.nodes.find((n) => n.name === 'HUB')!.hubPorts, 4);
    const [l1, l2, l3] = lab.links;
    assert.deepEqual(l2.ends.map((e) => [e.node, e.adapter, e.port]), [['PC2', 0, 0], ['SW1', 0, 1]]);
    assert.deepEqual(l2.filters, { delay: [20, 0], packet_loss: [1], bpf: ['icmp\narp'] });
    assert.deepEqual(l3.filters, { delay: [10, 2] });
    assert.equal(l3.suspend, true);
    assert.deepEqual([l1.capture, l2.capture, l3.capture], [true, false, false]);
    assert.deepEqual(l1.ends[1].pos, { line: 9, col: 15 });
  });

  it('malformed YAML: exit 2 at its line and column', () => {
    const err = errorOf('links:\n  - [PC1:0/0, SW1:0/0]', 'links:\n  - [PC1:0/0, SW1:0/0');
    assert.match(err.message, /^lab\.yml:\d+:\d+: invalid YAML: /);
    assert.ok(err.pos.line >= 9, err.message);
    const dup = errorOf('  HUB:', '  PC1:');
    assert.match(dup.message, /^lab\.yml:7:3: invalid YAML: Map keys must be unique/);
  });

  it('an unknown key: named, where it is, with the keys that are allowed', () => {
    assert.match(errorOf('gateway: 10.0.10.254', 'gatway: 10.0.10.254', 'gatway').message,
      /: unknown key "gatway" in nodes\.PC1; expected one of: type, template, compute, x, y, ports, port_count, ip, gateway, dns/);
    assert.match(errorOf('name: two-sites', 'name: two-sites\ncolour: blue', 'colour').message, /: unknown key "colour"; expected one of: name, defaults, nodes, links, captures, tests, devices, addressing, modules, vlans, ospf, bgp, groups, mgmt$/);
    assert.match(errorOf('suspend: true', 'suspended: true', 'suspended').message, /: unknown key "suspended" in links\.2; expected one of: endpoints, filters, suspend, capture, ends, lan, ospf, p2p_prefix, addresses, vlan$/);
    assert.match(errorOf('packet_loss: 1', 'loss: 1', 'loss').message, /: unknown key "loss" in links\.1\.filters/);
  });

  it('bad endpoints: syntax, unknown node, unknown port number or name, a link to itself', () => {
    assert.match(errorOf('[PC1:0/0, SW1:0/0]', '[PC1:0/0, SW1 0/0]', 'SW1 0/0').message, /: bad endpoint "SW1 0\/0": expected NODE:ADAPTER\/PORT/);
    assert.match(errorOf('[PC1:0/0, SW1:0/0]', '[PC9:0/0, SW1:0/0]', 'PC9').message, /: unknown node "PC9" in link end "PC9:0\/0"; nodes: SW1, PC1, PC2, HUB$/);
    assert.match(errorOf('[PC1:0/0, SW1:0/0]', '[PC1:0/1, SW1:0/0]', 'PC1:0/1').message, /: bad endpoint "PC1:0\/1": PC1 has no port 0\/1; its ports: Ethernet0 \(0\/0\)$/);
    assert.match(errorOf('SW1:Ethernet1', 'SW1:Ethernet9', 'SW1:Ethernet9').message, /: bad endpoint "SW1:Ethernet9": SW1 has no port named Ethernet9; its ports: Ethernet0 \(0\/0\), /);
    assert.match(errorOf('[PC1:0/0, SW1:0/0]', '[SW1:0/3, SW1:0/0]', 'SW1:0/0', '[SW1:0/3').message, /: a link cannot connect SW1 to itself$/);
  });

  it('a port used twice, a VLAN out of range, a bad CIDR, a bad gateway, ports set twice', () => {
    assert.match(errorOf('SW1:Ethernet1', 'SW1:e0', 'SW1:e0').message, /: port SW1:0\/0 is used twice \(first at line 9\)$/);
    assert.match(errorOf('vlan: 10', 'vlan: 4095', '4095').message, /: nodes\.SW1\.ports\.0-3\.vlan is out of range: must be <= 4094 \(VLANs are 1-4094\)$/);
    assert.match(errorOf('10.0.10.1/24', '10.0.10.256/24', '10.0.10.256/24').message, /: bad CIDR "10\.0\.10\.256\/24": expected an IPv4 address\/prefix length 1-32/);
    assert.match(errorOf('10.0.10.1/24', '10.0.10.1', '10.0.10.1,').message, /: bad CIDR "10\.0\.10\.1": expected an IPv4 address\/prefix length/);
    assert.match(errorOf('gateway: 10.0.10.254', 'gateway: 10.0.10', '10.0.10,').message, /: bad nodes\.PC1\.gateway "10\.0\.10"$/);
    assert.match(errorOf('7: {type: dot1q}', '3: {type: dot1q}', '3: {type').message, /: port 3 is set twice$/);
    assert.match(errorOf('type: ethernet_hub, port_count: 4', 'type: ethernet_hub, ip: 10.0.0.1/24', 'ip: 10.0.0.1').message, /: ip: is for vpcs and docker nodes, not ethernet_hub$/);
    assert.match(errorOf('PC2: {type: vpcs,', 'PC2: {', 'PC2').message, /: node PC2 needs a type: or a template:$/);
  });

  it('cloud ports name their interfaces (ethernet by default, or tap); a nat node has its one port nat0', () => {
    const lab = parseLab(`name: out
nodes:
  C: {type: cloud, ports: {1: {type: tap, interface: tap7}, 0: {interface: eth1, name: uplink}}}
  N: {type: nat}
  PC1: {type: vpcs}
  PC2: {type: vpcs}
  PC3: {type: vpcs}
links:
  - [PC1:0/0, C:uplink]
  - [PC2:0/0, C:tap7]
  - [PC3:0/0, N:nat0]
`, 'lab.yml');
    const cloud = lab.nodes.find((n) => n.name === 'C')!;
    assert.deepEqual(cloud.cloudPorts, [
      { port: 0, name: 'uplink', type: 'ethernet', interface: 'eth1' },
      { port: 1, name: 'tap7', type: 'tap', interface: 'tap7' },
    ]);
    assert.deepEqual(lab.links.map((l) => [l.ends[1].node, l.ends[1].port]), [['C', 0], ['C', 1], ['N', 0]]);
    const bad = (node: string, message: RegExp) => assert.throws(() => parseLab(`name: x\nnodes:\n  C: ${node}\n`, 'lab.yml'), (err: Error) => err instanceof LabFileError && message.test(err.message));
    bad('{type: cloud, ports: {0: {type: tap}}}', /cloud port 0 needs an interface:/);
    bad('{type: cloud, ports: {0-1: {interface: eth1}}}', /a cloud port is one port number, not a range/);
    bad('{type: cloud, ports: {0: {interface: eth1, vlan: 3}}}', /vlan: is for switch ports/);
    bad('{type: cloud, ports: {0: {interface: eth1, type: dot1q}}}', /a cloud port is ethernet or tap, not dot1q/);
    bad('{type: ethernet_switch, ports: {0: {interface: eth1}}}', /interface: is for cloud ports/);
    bad('{type: nat, ports: {0: {interface: eth1}}}', /ports: is for ethernet_switch and cloud nodes, not nat/);
  });

  it('captures must name a link of the file', () => {
    assert.match(errorOf('captures: [SW1:0/0-PC1:0/0]', 'captures: [SW1:0/2-PC1:0/0]', 'SW1:0/2-PC1').message, /: captures: "SW1:0\/2-PC1:0\/0" names no link of this file/);
  });

  // After a change to src/lab/file-schema.ts, write the file again with:
  // node -e "import('./dist/src/lab/file-schema.js').then(m=>require('fs').writeFileSync('schemas/lab.schema.json', JSON.stringify(m.LAB_FILE_SCHEMA,null,2)+'\n'))"
  it('the shipped schemas/lab.schema.json is the schema the CLI checks with; the examples pass it', () => {
    assert.deepEqual(JSON.parse(readFileSync(repo('schemas/lab.schema.json'), 'utf8')), JSON.parse(JSON.stringify(LAB_FILE_SCHEMA)));
    for (const example of ['vlans-trunk', 'two-computes', 'qemu-router', 'ospf-triangle']) {
      const text = readFileSync(repo(`examples/${example}.yml`), 'utf8');
      assert.match(text, /^# yaml-language-server: \$schema=\.\.\/schemas\/lab\.schema\.json\n/);
      assert.equal(parseLab(text, example).name, example);
    }
  });
});
