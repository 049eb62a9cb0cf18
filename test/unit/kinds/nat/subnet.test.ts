import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidError } from '../../../../src/daemon/errors.js';
import { natAddresses, overlaps, parseSubnet, routeSubnet } from '../../../../src/daemon/kinds/nat/subnet.js';
import { resolveSettings } from '../../../../src/daemon/settings.js';

describe('NAT subnet', () => {
  it('parses a.b.c.d/N, splits it into gateway, lease range and mask', () => {
    assert.deepEqual(natAddresses(parseSubnet('192.168.122.0/24')), { gateway: '192.168.122.1', firstLease: '192.168.122.2', lastLease: '192.168.122.254', netmask: '255.255.255.0' });
    assert.deepEqual(natAddresses(parseSubnet('10.8.0.0/29')), { gateway: '10.8.0.1', firstLease: '10.8.0.2', lastLease: '10.8.0.6', netmask: '255.255.255.248' });
  });

  it('refuses what is not a subnet with room for leases, naming where it came from', () => {
    for (const bad of ['192.168.122.0', '192.168.122.0/30', '192.168.122.0/7', '300.1.1.0/24', '10.0.0.0/24/1', 'x/24']) {
      assert.throws(() => parseSubnet(bad, 'nat_subnet'), (e: Error) => e instanceof InvalidError && e.message.startsWith(`nat_subnet: '${bad}' is not an IPv4 subnet`), bad);
    }
    assert.throws(() => parseSubnet('192.168.122.1/24'), /has host bits set \(did you mean 192\.168\.122\.0\/24\?\)/);
  });

  it('overlap with host routes: prefixes either way round, a host route, not the default route', () => {
    const lab = parseSubnet('192.168.122.0/24');
    assert.ok(overlaps(lab, routeSubnet('192.168.0.0/16')!));
    assert.ok(overlaps(lab, routeSubnet('192.168.122.128/25')!));
    assert.ok(overlaps(lab, routeSubnet('192.168.122.7')!));
    assert.ok(!overlaps(lab, routeSubnet('192.168.123.0/24')!));
    assert.equal(routeSubnet('fe80::/64'), undefined);
  });

  it('the nat_subnet setting: default like virbr0, EMUCTL_NAT_SUBNET checked at start', async () => {
    assert.equal((await resolveSettings({}, { EMUCTL_HOME: '/nonexistent-emuctl-home' })).natSubnet, '192.168.122.0/24');
    assert.equal((await resolveSettings({}, { EMUCTL_HOME: '/nonexistent-emuctl-home', EMUCTL_NAT_SUBNET: '10.9.0.0/16' })).natSubnet, '10.9.0.0/16');
    await assert.rejects(resolveSettings({}, { EMUCTL_HOME: '/nonexistent-emuctl-home', EMUCTL_NAT_SUBNET: '10.9.0.1/16' }), /^InvalidError: EMUCTL_NAT_SUBNET: '10\.9\.0\.1\/16' has host bits set/);
  });
});
