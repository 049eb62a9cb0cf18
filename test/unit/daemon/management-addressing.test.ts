// Management subnets and node addresses: free of host routes and other labs, the same for the same lab, lowest free first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseSubnet, managementSubnet, nextAddress, pinnedAddress, withPrefix } from '../../../src/daemon/controller/management/addressing.js';
import { ConflictError, InvalidError } from '../../../src/daemon/errors.js';
import { addressValue, cidrsOverlap, cidrText, parseCidr, type Cidr } from '../../../src/util/ip-cidr.js';

const cidr = (text: string, family: 4 | 6 = 4) => parseCidr(text, family) as Cidr;
const RANGE = cidr('198.19.128.0/17');

describe('management subnet choice', () => {
  it('gives a /24 of the range, the same one for the same lab name', () => {
    const a = chooseSubnet(RANGE, 'lab-a', [])!;
    assert.equal(a.prefix, 24);
    assert.ok(cidrsOverlap(RANGE, a));
    assert.deepEqual(chooseSubnet(RANGE, 'lab-a', []), a);
  });

  it('skips subnets a host route or another lab holds, deterministically', () => {
    const first = chooseSubnet(RANGE, 'lab-a', [])!;
    const next = chooseSubnet(RANGE, 'lab-a', [first])!;
    assert.notDeepEqual(next, first);
    const end = RANGE.network + (1n << 15n);
    assert.equal(next.network, first.network + 256n >= end ? RANGE.network : first.network + 256n, 'the next /24, wrapping at the end of the range');
    // A host route over half the range: the choice lands in the other half.
    const half = cidr('198.19.128.0/18');
    for (const name of ['a', 'b', 'c', 'd', 'e']) assert.ok(!cidrsOverlap(chooseSubnet(RANGE, name, [half])!, half), name);
  });

  it('two labs side by side get disjoint subnets', () => {
    const a = chooseSubnet(RANGE, 'same', [])!;
    const b = chooseSubnet(RANGE, 'same', [a])!;
    assert.ok(!cidrsOverlap(a, b));
  });

  it('says so when the range is full, and takes a range smaller than /24 whole', () => {
    assert.equal(chooseSubnet(cidr('198.19.130.0/24'), 'x', [cidr('198.19.130.0/25')]), undefined);
    assert.equal(cidrText(chooseSubnet(cidr('198.19.130.0/26'), 'x', [])!), '198.19.130.0/26');
  });

  it('gives IPv6 labs a /64', () => {
    const v6 = chooseSubnet(cidr('fd65:6d75:6374::/48', 6), 'lab-a', [])!;
    assert.equal(v6.prefix, 64);
    assert.match(cidrText(v6), /^fd65:6d75:6374:[0-9a-f]+::\/64$/);
  });

  it('checks a given subnet', () => {
    assert.throws(() => managementSubnet('198.19.130.0/30', 4, 'ipv4'), (e: Error) => e instanceof InvalidError && /prefix length from 8 to 29/.test(e.message));
    assert.throws(() => managementSubnet('198.19.130.1/24', 4, 'ipv4'), InvalidError);
  });
});

describe('management node addresses', () => {
  const subnet = cidr('198.19.130.0/24');
  const ip = (text: string) => addressValue(text, 4)!;

  it('the lowest free node address, after the gateway', () => {
    assert.equal(withPrefix(nextAddress(subnet, new Set()), subnet), '198.19.130.2/24');
    assert.equal(withPrefix(nextAddress(subnet, new Set([ip('198.19.130.2'), ip('198.19.130.4')])), subnet), '198.19.130.3/24');
  });

  it('a full subnet is a conflict (the broadcast address is never given)', () => {
    const small = cidr('198.19.130.0/29');
    const used = new Set([2, 3, 4, 5, 6].map((n) => ip(`198.19.130.${n}`)));
    assert.throws(() => nextAddress(small, used), ConflictError);
  });

  it('a pinned address is checked: in the subnet, not the gateway, not taken', () => {
    assert.equal(withPrefix(pinnedAddress('198.19.130.9', subnet, new Set(), 'mgmt_ipv4'), subnet), '198.19.130.9/24');
    assert.equal(withPrefix(pinnedAddress('198.19.130.9/24', subnet, new Set(), 'mgmt_ipv4'), subnet), '198.19.130.9/24');
    assert.throws(() => pinnedAddress('198.19.130.1', subnet, new Set(), 'mgmt_ipv4'), (e: Error) => e instanceof InvalidError && /the gateway is 198\.19\.130\.1/.test(e.message));
    assert.throws(() => pinnedAddress('198.19.131.9', subnet, new Set(), 'mgmt_ipv4'), InvalidError);
    assert.throws(() => pinnedAddress('198.19.130.9/16', subnet, new Set(), 'mgmt_ipv4'), InvalidError);
    assert.throws(() => pinnedAddress('198.19.130.9', subnet, new Set([ip('198.19.130.9')]), 'mgmt_ipv4'), ConflictError);
  });
});
