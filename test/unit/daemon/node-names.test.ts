import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allocateNodeName, formatName } from '../../../src/daemon/controller/node-names.js';
import { ConflictError, InvalidError } from '../../../src/daemon/errors.js';

const takenOf = (...names: string[]) => (name: string) => names.includes(name);

describe('node names as GNS3 allocates them', () => {
  it('templates: PC{0} gives the first free number', () => {
    assert.equal(allocateNodeName('PC{0}', takenOf()), 'PC1');
    assert.equal(allocateNodeName('PC{0}', takenOf('PC1', 'PC2')), 'PC3');
    assert.equal(allocateNodeName('PC{0}', takenOf('PC2')), 'PC1', 'a gap is filled');
    assert.equal(allocateNodeName('{name}-{0}'.replace('{name}', 'My Router'), takenOf()), 'MyRouter-1');
    assert.equal(allocateNodeName('R{id}', takenOf('R1')), 'R2');
  });

  it('a taken name gets its number replaced, or one appended (duplicates)', () => {
    assert.equal(allocateNodeName('PC1', takenOf('PC1')), 'PC2');
    assert.equal(allocateNodeName('SW', takenOf('SW')), 'SW1');
    assert.equal(allocateNodeName('SW', takenOf('SW', 'SW1')), 'SW2');
    assert.equal(allocateNodeName('core-7', takenOf('core-7', 'core-1')), 'core-2');
  });

  it('spaces go, as GNS3 drops them ("VPCS 1" is VPCS1)', () => {
    assert.equal(allocateNodeName('VPCS 1', takenOf()), 'VPCS1');
    assert.throws(() => allocateNodeName('   ', takenOf()), InvalidError);
  });

  it('a client-given name that is taken gets the next free one, as GNS3 renames it; a pattern is filled in', () => {
    assert.equal(allocateNodeName('SW1', takenOf('SW1')), 'SW2');
    assert.equal(allocateNodeName('PC{0}', takenOf('PC1')), 'PC2');
    assert.equal(allocateNodeName('any name: ünïcode ☃ %h', takenOf()), 'anyname:ünïcode☃%h');
  });

  it('an unknown replacement field is a 409, as in GNS3', () => {
    assert.throws(() => formatName('R{foo}', 1), ConflictError);
    assert.throws(() => allocateNodeName('R{foo}{0}', takenOf()), ConflictError);
  });
});
