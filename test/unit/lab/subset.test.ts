// lab up --nodes: a lab cut down to some nodes and the links between them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/client/errors.js';
import { linkLabel } from '../../../src/lab/model.js';
import { parseLab } from '../../../src/lab/parse.js';
import { labSubset } from '../../../src/lab/subset.js';

const LAB = parseLab(`name: t
nodes:
  R1: {type: docker, image: frr, adapters: 3}
  R2: {type: docker, image: frr, adapters: 3}
  R3: {type: docker, image: frr, adapters: 3}
  H1: {type: docker, image: busybox, ip: 198.18.1.10/24}
links:
  - [R1:eth0, R2:eth0]
  - [R2:eth1, R3:eth0]
  - [R3:eth1, R1:eth1]
  - [R1:eth2, H1:eth0]
tests:
  - {name: ping, ping: all}
`, 'lab.yml');

describe('lab subset (lab up --nodes)', () => {
  it('keeps the named nodes and the links between them, says what it left out, keeps the tests', () => {
    const { spec, droppedNodes, droppedLinks } = labSubset(LAB, ['R1', 'R2', 'H1']);
    assert.deepEqual(spec.nodes.map((n) => n.name), ['R1', 'R2', 'H1']);
    assert.deepEqual(spec.links.map(linkLabel), ['R1:0/0-R2:0/0', 'R1:2/0-H1:0/0']);
    assert.deepEqual([droppedNodes, droppedLinks], [['R3'], 2]);
    assert.equal(spec.tests.length, 1);
    assert.equal(LAB.nodes.length, 4, 'the file spec is left as it was');
  });

  it('a name the file does not have is a usage error naming the nodes', () => {
    assert.throws(() => labSubset(LAB, ['R1', 'R9']), (err: unknown) => err instanceof UsageError && /--nodes: R9 is not a node of lab\.yml; nodes: R1, R2, R3, H1/.test(err.message));
  });
});
