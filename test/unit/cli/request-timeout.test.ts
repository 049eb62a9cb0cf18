import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { requestTimeoutMs } from '../../../src/cli/context.js';
import { UsageError } from '../../../src/cli/errors.js';

describe('the request timeout', () => {
  it('is 10 s on an idle machine and grows with the load per core, up to 120 s', () => {
    assert.equal(requestTimeoutMs({}, 1), 10_000);
    assert.equal(requestTimeoutMs({}, 3.5), 35_000);
    assert.equal(requestTimeoutMs({}, 300), 120_000);
  });

  it('is EMUCTL_TIMEOUT seconds exactly when set, whatever the load', () => {
    assert.equal(requestTimeoutMs({ EMUCTL_TIMEOUT: '2.5' }, 40), 2_500);
    assert.throws(() => requestTimeoutMs({ EMUCTL_TIMEOUT: 'soon' }, 1), UsageError);
  });
});
