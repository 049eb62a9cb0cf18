// test-runner: ranges are data (they are parsed and compared, never opened)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const RUNNER = fileURLToPath(new URL('../../../scripts/run-tests.mjs', import.meta.url));
// The planner is a script beside the runner, outside the compiled tree.
const { planLanes, portRanges } = (await import(new URL('../../../scripts/test-lanes.mjs', import.meta.url).href)) as typeof import('../../scripts/test-lanes.mjs');
const SKIPPING = fileURLToPath(new URL('./fixtures/skipping.js', import.meta.url));

describe('the test runner', () => {
  it('fails a run in which a test skipped, naming it, unless scripts/allowed-skips.json lists it', () => {
    const { NODE_TEST_CONTEXT: _nested, ...env } = process.env; // the child is a run of its own, not a subtest of this one
    const r = spawnSync(process.execPath, [RUNNER, SKIPPING], { encoding: 'utf8', env });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /skip not allowed: skips for want of a tool \(.*skipping\.js\): the tool is not installed/);
    assert.match(r.stderr, /1 test\(s\) did not run/);
  });
});

describe('the test runner\'s lanes', () => {
  it('keeps files naming overlapping port ranges in one group, and the others apart', () => {
    const files = new Map([
      ['a', "const ENV = { EMUCTL_UDP_PORT_RANGE: '25100-25199' };"],
      ['b', 'const CONSOLE: [number, number] = [25150, 25160];'],
      ['c', "env: { EMUCTL_UDP_PORT_RANGE: '25200-25299' }"],
      ['d', 'no range at all'],
      ['e', "const r = `25299-25300`;"],
    ]);
    assert.deepEqual(planLanes(files), { groups: [['a', 'b'], ['c', 'e'], ['d']], serial: [] });
  });

  it('runs a file that says it compares host-wide state alone', () => {
    const files = new Map([
      ['nat', "// test-runner: serial (compares the whole iptables rule set)\nconst r = '25100-25199';"],
      ['other', "const r = '25100-25199';"],
      ['mention', "const note = 'a comment such as // test-runner: serial, inside a string';"],
    ]);
    assert.deepEqual(planLanes(files), { groups: [['other'], ['mention']], serial: ['nat'] });
  });

  it('reads only plausible port ranges', () => {
    assert.deepEqual(portRanges("'20-10' '1000-2000' '30000-30100' [50000, 50001] '70000-70001' '9000-8000'"), [[30000, 30100], [50000, 50001]]);
  });
});
