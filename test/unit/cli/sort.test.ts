import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareNames, sortedByName } from '../../../src/render/sort.js';

const sorted = (names: string[]) => sortedByName(names, (n) => n);

describe('natural order of names', () => {
  it('numbers in names compare as numbers', () => {
    assert.deepEqual(sorted(['PC10', 'PC2', 'PC1', 'SW1', 'PC1a']), ['PC1', 'PC1a', 'PC2', 'PC10', 'SW1']);
    assert.deepEqual(sorted(['r007', 'r7', 'r06', 'r100000000000000000001', 'r99']), ['r06', 'r007', 'r7', 'r99', 'r100000000000000000001']);
  });

  it('case is ignored, then the exact text breaks ties', () => {
    assert.deepEqual(sorted(['beta', 'Alpha', 'alpha', 'Beta']), ['Alpha', 'alpha', 'Beta', 'beta']);
  });

  it('link names sort by their first end, port numbers numerically', () => {
    assert.deepEqual(sorted(['PC1:0/10-SW1:0/1', 'PC1:0/2-SW1:0/0', 'PC10:0/0-SW1:0/2']),
      ['PC1:0/2-SW1:0/0', 'PC1:0/10-SW1:0/1', 'PC10:0/0-SW1:0/2']);
  });

  it('is a consistent order: antisymmetric, 0 only for equal text, shorter prefix first', () => {
    const names = ['', 'a', 'A', 'a1', 'a01', 'a1b', '1', '01', 'é', 'z', 'Z9', 'Z10'];
    for (const a of names) {
      for (const b of names) {
        assert.equal(Math.sign(compareNames(a, b)) + Math.sign(compareNames(b, a)), 0, `${a} vs ${b}`);
        assert.equal(compareNames(a, b) === 0, a === b, `${a} vs ${b}`);
      }
    }
    assert.ok(compareNames('PC', 'PC1') < 0);
  });
});
