import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathsUnder } from '../../../src/config/paths.js';
import { readTokens, tokenExpiry, tokensFile, usableToken, withoutToken, writeToken } from '../../../src/client/tokens.js';

const jwt = (claims: object) => `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

describe('kept GNS3 3.x tokens', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-tokens-'));
  after(() => rmSync(home, { recursive: true, force: true }));
  const paths = pathsUnder(home);

  it('are written owner-only (0600), per profile, and forgotten on demand', () => {
    writeToken(paths, 'g3', { url: 'http://h:3080', user: 'admin', token: 'T1', expires: 10 });
    writeToken(paths, 'other', { url: 'http://o:3080', user: 'bob', token: 'T2' });
    assert.equal(statSync(tokensFile(paths)).mode & 0o777, 0o600);
    assert.deepEqual(Object.keys(readTokens(paths)).sort(), ['g3', 'other']);
    writeToken(paths, 'g3', undefined);
    assert.deepEqual(Object.keys(readTokens(paths)), ['other']);
    assert.ok(!readFileSync(tokensFile(paths), 'utf8').includes('T1'));
    assert.equal(statSync(tokensFile(paths)).mode & 0o777, 0o600);
  });

  it('are used only for their URL and user, and not within a minute of their expiry', () => {
    const now = 1_000_000;
    const kept = { url: 'http://h:3080', user: 'admin', token: 'T', expires: now + 3600 };
    assert.equal(usableToken(kept, 'http://h:3080', 'admin', now), true);
    assert.equal(usableToken(kept, 'http://other:3080', 'admin', now), false);
    assert.equal(usableToken(kept, 'http://h:3080', 'bob', now), false);
    assert.equal(usableToken({ ...kept, expires: now + 30 }, 'http://h:3080', 'admin', now), false);
    assert.equal(usableToken(undefined, 'http://h:3080', 'admin', now), false);
  });

  it('expiry comes from the JWT exp claim; anything else has none', () => {
    assert.equal(tokenExpiry(jwt({ sub: 'admin', exp: 1234 })), 1234);
    assert.equal(tokenExpiry('not-a-jwt'), undefined);
    assert.equal(tokenExpiry(jwt({ sub: 'admin' })), undefined);
  });

  it('?token= is hidden in anything logged', () => {
    assert.equal(withoutToken('ws://h/v3/notifications/ws?token=abc.def.ghi'), 'ws://h/v3/notifications/ws?token=<hidden>');
    assert.equal(withoutToken('/x?a=1&token=s3cret&b=2'), '/x?a=1&token=<hidden>&b=2');
  });
});
