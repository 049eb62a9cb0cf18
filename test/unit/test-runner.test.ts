import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const RUNNER = fileURLToPath(new URL('../../../scripts/run-tests.mjs', import.meta.url));
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
