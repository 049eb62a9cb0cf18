import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bulkTimeoutMs, loadFactor, perNodeTimeoutMs, startConcurrency, stopConcurrency } from '../../../src/client/pacing.js';
import { eachLimited } from '../../../src/util/each-limited.js';

describe('pacing: waits and fan-out that follow the machine load', () => {
  it('an idle machine keeps the base waits; a loaded one stretches them by the load per core', () => {
    assert.equal(loadFactor(0.5, 2), 1);
    assert.equal(loadFactor(20, 2), 10);
    assert.equal(perNodeTimeoutMs(1), 60_000);
    assert.equal(perNodeTimeoutMs(10), 600_000);
    assert.equal(bulkTimeoutMs(200, 1), 460_000);
    assert.equal(bulkTimeoutMs(200, 10), 4_600_000);
  });

  it('starts and stops 4 per core whatever the load: starts within 2…32, stops at most 16', () => {
    assert.deepEqual([1, 2, 8, 64].map((cores) => startConcurrency(cores)), [4, 8, 32, 32]);
    assert.deepEqual([1, 2, 8].map((cores) => stopConcurrency(cores)), [4, 8, 16]);
  });

  it('runs every item with no more than the limit in flight, and reports each failure in place', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      if (n === 4) throw new Error('four');
      return n * 10;
    });
    assert.equal(most, 3);
    assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)), [10, 20, 30, 'four', 50, 60, 70]);
  });
});
