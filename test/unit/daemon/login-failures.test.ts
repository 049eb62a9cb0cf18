import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey, LoginFailures } from '../../../src/daemon/http/middleware/login-failures.js';
import { silentLogger } from '../../../src/daemon/logger.js';

describe('login failures', () => {
  it('a brute force from many addresses keeps a bounded table', () => {
    const failures = new LoginFailures({ maxFailures: 3, backoffMs: 1000 }, silentLogger);
    for (let i = 0; i < 30_000; i++) failures.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    assert.ok(failures.size <= 10_000, `${failures.size} addresses remembered`);
  });

  it('counts an IPv6 /64 as one client and an IPv4-mapped address as its IPv4 address', () => {
    assert.equal(clientKey('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:2:ffff:eeee:dddd:cccc'));
    assert.notEqual(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'));
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    const failures = new LoginFailures({ maxFailures: 3, backoffMs: 1000 }, silentLogger);
    for (let i = 1; i <= 3; i++) failures.failed(`2001:db8:1:2::${i.toString(16)}`);
    assert.ok(failures.waitFor('2001:db8:1:2:abcd::9') > 0, 'rotating through the /64 does not escape the wait');
    assert.equal(failures.waitFor('2001:db8:1:3::1'), 0);
  });

  it('each further failure doubles the wait, up to 15 min; an address quiet that long starts afresh', () => {
    let now = 0;
    const failures = new LoginFailures({ maxFailures: 2, backoffMs: 1000 }, silentLogger, () => now);
    failures.failed('192.0.2.1');
    assert.equal(failures.waitFor('192.0.2.1'), 0);
    failures.failed('192.0.2.1');
    assert.equal(failures.waitFor('192.0.2.1'), 1000);
    failures.failed('192.0.2.1');
    assert.equal(failures.waitFor('192.0.2.1'), 2000);
    for (let i = 0; i < 40; i++) failures.failed('192.0.2.1');
    assert.equal(failures.waitFor('192.0.2.1'), 15 * 60_000);
    now += 15 * 60_000 + 1;
    assert.equal(failures.waitFor('192.0.2.1'), 0);
    failures.failed('192.0.2.1');
    assert.equal(failures.waitFor('192.0.2.1'), 0, 'one failure after a long quiet is not slowed');
  });
});
