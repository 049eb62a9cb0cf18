import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ManagementDhcp } from '../../../src/daemon/compute/management/dhcp-server.js';
import { mgmtTapName } from '../../../src/daemon/compute/management/management-tap.js';
import { alwaysRefused } from '../../../src/daemon/compute/host-interface-policy.js';
import { createLogger } from '../../../src/daemon/logger.js';

describe("a management network's DHCP server", () => {
  const log = createLogger({ quiet: true });
  const options = (dir: string) => ({ bridge: 'emum01234567', subnet: '198.18.5.0/24', dir, env: process.env, log });

  it('refuses what would reach dnsmasq other than a MAC, a bridge of its own name shape and an IPv4 subnet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emuctl-dhcp-'));
    try {
      assert.throws(() => new ManagementDhcp({ ...options(dir), bridge: 'br0 --dhcp-script=/x' }), /not one dnsmasq may be given/);
      assert.throws(() => new ManagementDhcp({ ...options(dir), subnet: '2001:db8::/64' }), /management subnet/);
      assert.throws(() => new ManagementDhcp({ ...options(dir), router: '198.18.5.1,8.8.8.8' }), /not an address of 198\.18\.5\.0\/24/);
      assert.throws(() => new ManagementDhcp({ ...options(dir), router: '198.18.6.1' }), /not an address of/);
      const dhcp = new ManagementDhcp(options(dir));
      await assert.rejects(dhcp.set('n1', '0c:00:00:00:00:01,198.18.5.9', '198.18.5.2'), /not a MAC address dnsmasq may be given/);
      await assert.rejects(dhcp.set('n1', '0C:00:00:00:00:01', '198.18.5.2'), /not a MAC address/, 'dnsmasq gets lower case, as the node computes it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a VM's management TAP after its node, as an interface no cloud may take", () => {
    assert.equal(mgmtTapName('2320a0b9-ed9b-45d9-9bef-c6d13bd9dde2'), 'emuq2320a0b9');
    assert.match(alwaysRefused('emuq2320a0b9') ?? '', /emuctl interface/);
  });
});
