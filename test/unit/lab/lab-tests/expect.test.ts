// Expectations on a command's output: each one that does not hold is reported as expected/seen.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOutput, pathSegments } from '../../../../src/lab/lab-tests/expect.js';
import type { Expectations } from '../../../../src/lab/lab-tests/model.js';
import { parseDuration } from '../../../../src/lab/lab-tests/duration.js';
import { splitShellWords } from '../../../../src/util/shell-words.js';

const none: Expectations = { contains: [], notContains: [] };
// FRR 8's `show ip ospf neighbor json`: neighbours keyed by router id, each a list.
const OSPF = JSON.stringify({ neighbors: { '198.18.0.2': [{ nbrState: 'Full/DR', ifaceName: 'eth0' }], '198.18.0.3': [{ nbrState: 'Full/Backup', ifaceName: 'eth1' }] } });

describe('lab test expectations', () => {
  it('exit, contains, not_contains and regex: all required, each miss reported', () => {
    assert.deepEqual(checkOutput({ ...none, exit: 0, contains: ['Full'], notContains: ['Down'], regex: /^O>\* 198\.18\.101\.0\/24/m }, 'x\nO>* 198.18.101.0/24 via Full', 0), []);
    const misses = checkOutput({ ...none, exit: 0, contains: ['Full', 'eth0'], notContains: ['Init'], regex: /two/ }, 'Init eth0', 1);
    assert.deepEqual(misses.map((m) => m.expected), ['exit 0', 'output contains "Full"', 'output does not contain "Init"', 'output matches /two/']);
    assert.deepEqual(misses[0], { expected: 'exit 0', seen: 'exit 1' });
    assert.equal(misses[1].seen, 'Init eth0');
    assert.deepEqual(checkOutput(none, 'anything', 3), [], 'no expectation: any output passes');
  });

  it('json min/max count the keys of an object (neighbours by router id) and the entries of a list; equals compares deeply', () => {
    assert.deepEqual(checkOutput({ ...none, json: { path: 'neighbors', min: 2, max: 2 } }, OSPF, 0), []);
    const [miss] = checkOutput({ ...none, json: { path: 'neighbors', min: 3 } }, OSPF, 0);
    assert.equal(miss.expected, 'keys of neighbors >= 3');
    assert.match(miss.seen, /^2: /);
    assert.deepEqual(checkOutput({ ...none, json: { path: 'neighbors["198.18.0.2"]', max: 1 } }, OSPF, 0), []);
    assert.deepEqual(checkOutput({ ...none, json: { path: 'neighbors["198.18.0.2"][0].nbrState', equals: 'Full/DR' } }, OSPF, 0), []);
    assert.deepEqual(checkOutput({ ...none, json: { path: "$.neighbors['198.18.0.3'][0]", equals: { ifaceName: 'eth1', nbrState: 'Full/Backup' } } }, OSPF, 0), []);
    assert.equal(checkOutput({ ...none, json: { path: 'neighbors["198.18.0.3"][0].nbrState', equals: 'Full/DR' } }, OSPF, 0)[0].seen, '"Full/Backup"');
    assert.deepEqual(checkOutput({ ...none, json: { path: 'a.n', min: 5, max: 9 } }, '{"a":{"n":7}}', 0), []);
    assert.equal(checkOutput({ ...none, json: { path: 'a.n', max: 6 } }, '{"a":{"n":7}}', 0)[0].expected, 'value of a.n <= 6');
  });

  it('json on output that is not JSON, or a path that is not there, fails saying so', () => {
    assert.equal(checkOutput({ ...none, json: { path: 'neighbors', min: 1 } }, '% Unknown command', 0)[0].expected, 'JSON output (for json: neighbors)');
    const [miss] = checkOutput({ ...none, json: { path: 'neighbours', min: 1 } }, OSPF, 0);
    assert.equal(miss.expected, 'a value at neighbours');
    assert.match(miss.seen, /no "neighbours" in the document \(it has: neighbors\)/);
    assert.equal(checkOutput({ ...none, json: { path: 'neighbors', equals: 1 } }, OSPF, 0).length, 1);
  });

  it('paths, durations and command words', () => {
    assert.deepEqual(pathSegments('a.b[2]["x.y"].c'), ['a', 'b', 2, 'x.y', 'c']);
    assert.deepEqual(pathSegments('$'), []);
    assert.equal(pathSegments('a[x'), undefined);
    assert.deepEqual(['30s', '500ms', '2m', '1m30s', '1.5s', 10, '7'].map((d) => parseDuration(d)), [30_000, 500, 120_000, 90_000, 1500, 10_000, 7000]);
    assert.deepEqual(['30 s', 'soon', '', '-1s', '5x'].map((d) => parseDuration(d)), [undefined, undefined, undefined, undefined, undefined]);
    assert.deepEqual(splitShellWords(`vtysh -c 'show ip ospf neighbor json'`), ['vtysh', '-c', 'show ip ospf neighbor json']);
    assert.deepEqual(splitShellWords(`sh -c "echo \\"a b\\"" x\\ y ''`), ['sh', '-c', 'echo "a b"', 'x y', '']);
    assert.throws(() => splitShellWords(`echo 'open`), /unterminated ' quote/);
    assert.throws(() => splitShellWords('echo x\\'), /lone backslash/);
  });
});
