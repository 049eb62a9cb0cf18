// Rates from consecutive samples of the traffic route (`link stats --watch`), and how they show.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LinkRateTracker, type LinkTraffic } from '../../../src/client/link-traffic.js';
import { linkRatesTable, linkStatsTable } from '../../../src/commands/link/render.js';
import { PLAIN } from '../../../src/render/style.js';

const sample = (at: number, counters: Partial<LinkTraffic> = {}): LinkTraffic => ({
  link_id: 'L1', node_id: 'N1', adapter_number: 0, port_number: 0,
  framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, drops: 0, errors: 0, timestamp: at, ...counters,
});

describe('LinkRateTracker', () => {
  it('gives no rates from one sample, then per-second rates timed by the answers\' timestamps', () => {
    const tracker = new LinkRateTracker();
    assert.equal(tracker.sample([sample(10_000, { framesIn: 5, bytesIn: 500 })]).size, 0);
    // Two seconds between the compute's answers, whatever the local clock did.
    const rates = tracker.sample([sample(12_000, { framesIn: 25, framesOut: 4, bytesIn: 2500, bytesOut: 1000 })]);
    assert.deepEqual(rates.get('L1'), { framesInPerSecond: 10, framesOutPerSecond: 2, bytesInPerSecond: 1000, bytesOutPerSecond: 500 });
  });

  it('starts a link over when its counters went down or it was read on another end', () => {
    const tracker = new LinkRateTracker();
    tracker.sample([sample(1000, { framesIn: 100, bytesIn: 9000 })]);
    assert.equal(tracker.sample([sample(2000, { framesIn: 3, bytesIn: 300 })]).size, 0, 'counters went down');
    assert.equal(tracker.sample([sample(3000, { framesIn: 13, bytesIn: 1300 })]).get('L1')?.framesInPerSecond, 10);
    assert.equal(tracker.sample([sample(4000, { node_id: 'N2', framesIn: 50, bytesIn: 5000 })]).size, 0, 'another end');
    assert.equal(tracker.sample([sample(5000, { node_id: 'N2', framesIn: 60, bytesIn: 6000 })]).get('L1')?.bytesInPerSecond, 1000);
  });

  it('forgets a link absent from a sample: it starts over when it comes back', () => {
    const tracker = new LinkRateTracker();
    tracker.sample([sample(1000)]);
    tracker.sample([]);
    assert.equal(tracker.sample([sample(3000, { framesIn: 10 })]).size, 0);
  });
});

describe('link stats tables', () => {
  it('totals in human units, `-` for a link without counters', () => {
    const table = linkStatsTable([
      { name: 'PC1:0/0-SW1:0/0', traffic: sample(0, { framesIn: 12, framesOut: 3, bytesIn: 1500, bytesOut: 180, drops: 2 }) },
      { name: 'SW1:0/1-SW2:0/0' },
    ], PLAIN);
    assert.equal(table, [
      'LINK             FRAMES IN  FRAMES OUT  BYTES IN  BYTES OUT  DROPS  ERRORS',
      'PC1:0/0-SW1:0/0  12         3           1.5 kB    180 B      2      0',
      'SW1:0/1-SW2:0/0  -          -           -         -          -      -',
      '',
    ].join('\n'));
  });

  it('rates per second in human units, `-` until a link has two samples', () => {
    const table = linkRatesTable([
      { name: 'A', traffic: sample(0), rates: { framesInPerSecond: 2.54, framesOutPerSecond: 120.4, bytesInPerSecond: 2540.2, bytesOutPerSecond: 0 } },
      { name: 'B', traffic: sample(0) },
    ], PLAIN);
    assert.equal(table, [
      'LINK  FRAMES/S IN  FRAMES/S OUT  BYTES/S IN  BYTES/S OUT  DROPS  ERRORS',
      'A     2.5          120           2.5 kB/s    0 B/s        0      0',
      'B     -            -             -           -            0      0',
      '',
    ].join('\n'));
  });
});
