import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateFilters } from '../../../../../src/daemon/dataplane/filters/catalog.js';
import { InvalidError } from '../../../../../src/daemon/errors.js';

// validateFilters is the one check of link filters: the controller's link routes, the topology
// file and the compute's NIO routes call it where filters enter; nothing below checks again.
describe('validateFilters', () => {
  it('refuses unknown filters, values out of range and parameters that are not integers', () => {
    assert.throws(() => validateFilters({ packet_loss: [150] }), /packet_loss: Chance 150 is out of range 0\.\.100/);
    assert.throws(() => validateFilters({ frequency_drop: [-2] }), InvalidError);
    assert.throws(() => validateFilters({ corrupt: [101] }), InvalidError);
    assert.throws(() => validateFilters({ frequency_drop: [1.5] }), /must be an integer/);
    assert.throws(() => validateFilters({ bogus: [1] }), /Unknown filter 'bogus'/);
    assert.throws(() => validateFilters({ delay: 5 }), /must be a list/);
    assert.throws(() => validateFilters({ delay: [1, 2, 3] }), /at most 2/);
    assert.throws(() => validateFilters({ bpf: [1] }), /must be text/);
  });

  it('returns the checked value: digits as numbers, filters that are off left out', () => {
    assert.deepEqual(validateFilters({ delay: ['20', 5], packet_loss: [0], bpf: ['  '], corrupt: [], rate: [512] }), { delay: [20, 5], rate: [512] });
  });
});
