import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFingerprint } from '../../../src/util/tls-fingerprint.js';

const CANONICAL = '20:0D:61:80:31:9C:5D:8E:2C:20:99:47:D8:5E:16:4C:5B:F4:DB:54:B9:9F:11:4D:00:2C:14:88:FD:82:7C:1A';

describe('SHA-256 fingerprints', () => {
  it('reads colon-hex, plain hex, any case, with the prefixes openssl and the daemon print', () => {
    for (const text of [CANONICAL, CANONICAL.toLowerCase(), CANONICAL.replace(/:/g, ''), ` ${CANONICAL}\n`,
      `sha256 Fingerprint=${CANONICAL}`, `SHA256 fingerprint: ${CANONICAL}`, `SHA256:${CANONICAL.replace(/:/g, '')}`]) {
      assert.equal(parseFingerprint(text), CANONICAL, text);
    }
  });

  it('refuses anything that is not 32 bytes of hex', () => {
    for (const text of ['', 'AB:CD', CANONICAL.slice(3), `${CANONICAL}:00`, CANONICAL.replace('20', 'ZZ'), 'SHA256:IDiDKfbRpx9aT9Xp2+vvMvO3QfTnA5gqe6Q5vW1Ncdw']) {
      assert.equal(parseFingerprint(text), undefined, text);
    }
  });
});
