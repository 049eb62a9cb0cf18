// IPv4/IPv6 numbers and subnets: parsing, text, overlap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressText, addressValue, cidrContains, cidrsOverlap, cidrText, parseCidr, type Cidr } from '../../../src/util/ip-cidr.js';
import { parseIpv4Routes, parseIpv6Routes } from '../../../src/util/host-routes.js';

const cidr = (text: string, family: 4 | 6) => parseCidr(text, family) as Cidr;

describe('ip-cidr', () => {
  it('reads and writes addresses of both families (RFC 5952 for IPv6)', () => {
    assert.equal(addressValue('198.19.130.5', 4), 0xc6138205n);
    assert.equal(addressText(0xc6138205n, 4), '198.19.130.5');
    for (const [text, canonical] of [['fd00::1', 'fd00::1'], ['FD00:0:0:0:0:0:0:1', 'fd00::1'], ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], ['::', '::'], ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8']]) {
      assert.equal(addressText(addressValue(text, 6)!, 6), canonical, text);
    }
    assert.equal(addressValue('1.2.3.4', 6), undefined);
    assert.equal(addressValue('fd00::1', 4), undefined);
    assert.equal(addressValue('256.1.1.1', 4), undefined);
  });

  it('parses subnets and refuses host bits', () => {
    assert.equal(cidrText(cidr('198.19.128.0/17', 4)), '198.19.128.0/17');
    assert.equal(cidrText(cidr('fd65:6d75:6374::/48', 6)), 'fd65:6d75:6374::/48');
    assert.match(parseCidr('198.19.128.1/17', 4) as string, /did you mean 198\.19\.128\.0\/17/);
    assert.match(parseCidr('198.19.128.0/33', 4) as string, /not an IPv4 subnet/);
  });

  it('tells overlap and containment', () => {
    assert.ok(cidrsOverlap(cidr('10.0.0.0/8', 4), cidr('10.1.2.0/24', 4)));
    assert.ok(!cidrsOverlap(cidr('10.0.0.0/24', 4), cidr('10.0.1.0/24', 4)));
    assert.ok(!cidrsOverlap(cidr('10.0.0.0/24', 4), cidr('fd00::/64', 6)), 'families never overlap');
    assert.ok(cidrContains(cidr('fd00::/64', 6), addressValue('fd00::ffff', 6)!));
  });

  it("reads the kernel's route tables", () => {
    const v4 = parseIpv4Routes('Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nbr0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\neth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n');
    assert.deepEqual(v4.map((r) => `${r.dev} ${cidrText(r.destination)}`), ['br0 192.0.2.0/24'], 'the default route is left out');
    const v6 = parseIpv6Routes([
      'fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0',
      'fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000002 00000000 00000001     eth0',
      '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0',
    ].join('\n'));
    assert.deepEqual(v6.map((r) => `${r.dev} ${cidrText(r.destination)}`), ['eth0 fd00::/64']);
  });
});
