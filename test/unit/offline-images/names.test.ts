// Which images emuctl builds offline (src/offline-images/names.ts), and the hint a missing one gets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHint, latestTag, offlineImageOf } from '../../../src/offline-images/names.js';

describe('offline image names', () => {
  it('knows its own tags and no others', () => {
    assert.equal(latestTag('frr'), 'emuctl/frr:latest');
    assert.equal(offlineImageOf('emuctl/frr:latest'), 'frr');
    assert.equal(offlineImageOf('emuctl/host'), 'host');
    assert.equal(offlineImageOf('emuctl-test/host:2035c66196a1'), 'host');
    assert.equal(offlineImageOf('emuctl/ssh:latest'), 'ssh');
    for (const other of ['frrouting/frr:v8.4.0', 'emuctl/sshd:latest', 'docker.io/emuctl/frr:latest', 'emuctl/frr:latest/x', 'my/emuctl/frr']) assert.equal(offlineImageOf(other), undefined, other);
    assert.equal(buildHint('emuctl/host:latest'), 'emuctl image build host');
    assert.equal(buildHint('busybox:1.36'), undefined);
  });
});
