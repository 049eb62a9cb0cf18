import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureFileNameProblem } from '../../../src/client/captures.js';
import { checkCaptureFileName } from '../../../src/daemon/compute/capture-files.js';
import { InvalidError } from '../../../src/daemon/errors.js';
import { isPlainCaptureFileName } from '../../../src/util/capture-file-name.js';

const REFUSED = ['', '.', '..', 'a/b.pcap', '/etc/x', 'a\\b.pcap', '..pcap', 'x..y', 'nul\0.pcap'];
const TAKEN = ['PC1_0-0_to_SW1_0-0.pcap', 'a.b.pcap', '-x', 'é.pcap'];

describe('capture file names', () => {
  it('one rule: a file name, never a path', () => {
    for (const name of REFUSED) assert.equal(isPlainCaptureFileName(name), false, JSON.stringify(name));
    for (const name of TAKEN) assert.equal(isPlainCaptureFileName(name), true, name);
  });

  it('the CLI and the daemon apply the same rule', () => {
    for (const name of REFUSED) {
      assert.ok(captureFileNameProblem(name), JSON.stringify(name));
      assert.throws(() => checkCaptureFileName(name), InvalidError, JSON.stringify(name));
    }
    for (const name of TAKEN) {
      assert.equal(captureFileNameProblem(name), undefined);
      assert.equal(checkCaptureFileName(name), name);
    }
  });

  it('the daemon also holds a name to one file name\'s length', () => {
    assert.equal(checkCaptureFileName('a'.repeat(255)), 'a'.repeat(255));
    assert.throws(() => checkCaptureFileName('é'.repeat(128)), /too long \(256 bytes\): the limit is 255 bytes/);
  });
});
