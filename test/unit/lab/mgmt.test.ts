// `mgmt:` in a lab file and pinned management addresses: the defaults, and where a bad file is wrong.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LabFileError } from '../../../src/lab/locate.js';
import { nodeCreateBody, nodeCreateProperties } from '../../../src/lab/node-bodies.js';
import { parseLab } from '../../../src/lab/parse.js';

const lab = (mgmt: string, nodes = '  R1: {type: docker, image: frr}\n') => `name: m\n${mgmt}nodes:\n${nodes}`;

/** The error of a file, whose message must start with `lab.yml:LINE:COL` of the last `needle` in it and match `message`. */
function errorOf(text: string, needle: string, message: RegExp): void {
  const offset = text.lastIndexOf(needle);
  assert.ok(offset >= 0, `${needle} in the text`);
  const before = text.slice(0, offset).split('\n');
  const at = `${before.length}:${before.at(-1)!.length + 1}`;
  assert.throws(() => parseLab(text, 'lab.yml'), (err: Error) => {
    assert.ok(err instanceof LabFileError, String(err));
    assert.ok(err.message.startsWith(`lab.yml:${at}: `), `${err.message} (expected at ${at})`);
    assert.match(err.message, message);
    return true;
  });
}

describe('lab file mgmt:', () => {
  it('is absent unless written; mgmt: {} takes every default', () => {
    assert.equal(parseLab(lab(''), 'lab.yml').mgmt, undefined);
    const { mgmt } = parseLab(lab('mgmt: {}\n'), 'lab.yml');
    assert.deepEqual({ ...mgmt, pos: undefined }, { ipv4: 'auto', ipv6: 'auto', interface: 'mgmt0', ssh: true, nat: false, pos: undefined });
    assert.deepEqual(mgmt!.pos, { line: 2, col: 7 });
  });

  it('keeps given subnets, ipv6: false, the interface name, ssh and nat', () => {
    const { mgmt } = parseLab(lab('mgmt: {ipv4: 198.19.130.0/24, ipv6: false, interface: oob0, ssh: false, nat: true}\n'), 'lab.yml');
    assert.deepEqual({ ...mgmt, pos: undefined }, { ipv4: '198.19.130.0/24', ipv6: false, interface: 'oob0', ssh: false, nat: true, pos: undefined });
    assert.equal(parseLab(lab('mgmt: {ipv6: "fd00:1:2:3::/64"}\n'), 'lab.yml').mgmt!.ipv6, 'fd00:1:2:3::/64');
  });

  it('takes pinned addresses on docker and qemu nodes, sent with the create only', () => {
    const spec = parseLab(lab('mgmt: {ipv4: 198.19.130.0/24}\n', '  R1: {type: docker, image: frr, mgmt_ip: 198.19.130.9, mgmt_ipv6: "fd00::9"}\n  Q: {type: qemu, mgmt_ip: 198.19.130.10}\n'), 'lab.yml');
    const r1 = spec.nodes[0];
    assert.equal(r1.mgmtIp, '198.19.130.9');
    assert.equal(r1.mgmtIpv6, 'fd00::9');
    assert.equal(nodeCreateBody(r1, 'local').properties!.mgmt_ipv4, '198.19.130.9');
    assert.equal(nodeCreateProperties(r1).mgmt_ipv4, undefined, 'not compared by the planner (the server adds the prefix length)');
    assert.equal(spec.nodes[1].mgmtIp, '198.19.130.10');
  });

  it('refuses bad subnets at their place', () => {
    errorOf(lab('mgmt: {ipv4: 198.19.130.1/24}\n'), '198.19.130.1/24', /host bits set \(did you mean 198\.19\.130\.0\/24\?\)/);
    errorOf(lab('mgmt: {ipv4: 198.19.130.0/30}\n'), '198.19.130.0/30', /prefix length from 8 to 29/);
    errorOf(lab('mgmt: {ipv4: 300.19.130.0/24}\n'), '300.19.130.0/24', /not an IPv4 subnet/);
    errorOf(lab('mgmt: {ipv6: "fd00::1/64"}\n'), '"fd00::1/64"', /host bits set/);
    errorOf(lab('mgmt: {ipv6: "fd00::/32"}\n'), '"fd00::/32"', /prefix length from 48 to 120/);
    errorOf(lab('mgmt: {ipv4: 10.0.0.0/24, vlan: 3}\n'), 'vlan', /vlan/);
    errorOf(lab('mgmt: {interface: "eth 0"}\n'), '"eth 0"', /interface/);
    errorOf(lab('mgmt: {nat: "yes"}\n'), '"yes"', /nat/);
    errorOf(lab('mgmt: {nat: 1}\n'), '1}', /nat/);
  });

  it('refuses pinned addresses without mgmt:, outside the subnet, twice, or on other node types', () => {
    errorOf(lab('', '  R1: {type: docker, image: frr, mgmt_ip: 198.19.130.9}\n'), 'mgmt_ip', /mgmt_ip: needs a management network: add mgmt: \{\}/);
    errorOf(lab('mgmt: {ipv4: 198.19.130.0/24}\n', '  R1: {type: docker, image: frr, mgmt_ip: 198.19.131.9}\n'), '198.19.131.9', /198\.19\.131\.9 is not in the management subnet 198\.19\.130\.0\/24/);
    errorOf(lab('mgmt: {}\n', '  R1: {type: docker, image: frr, mgmt_ip: 10.0.0.5}\n  R2: {type: docker, image: frr, mgmt_ip: 10.0.0.5}\n'), '10.0.0.5', /pinned twice \(also by R1\)/);
    errorOf(lab('mgmt: {}\n', '  P: {type: vpcs, mgmt_ip: 10.0.0.5}\n'), 'mgmt_ip', /mgmt_ip: is for docker and qemu nodes, not vpcs/);
    errorOf(lab('mgmt: {ipv6: false}\n', '  R1: {type: docker, image: frr, mgmt_ipv6: "fd00::5"}\n'), 'mgmt_ipv6', /no IPv6/);
    errorOf(lab('mgmt: {}\n', '  R1: {type: docker, image: frr, mgmt_ipv6: "10.0.0.5"}\n'), '"10.0.0.5"', /not an IPv6 address/);
  });
});
