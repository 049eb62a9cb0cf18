// A lab's SSH files (src/lab/ssh-keys.ts): owner-only modes, one key per server and lab, kept
// across runs, and known_hosts lines forgotten by address. ssh-keygen makes the real key.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ensureLabKey, existingLabKey, forgetHostKeys, labSshFiles } from '../../../src/lab/ssh-keys.js';

const home = mkdtempSync(join(tmpdir(), 'emuctl-ssh-keys-'));
after(() => rmSync(home, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('lab SSH keys', () => {
  it('makes an ed25519 pair in a 0700 directory, every file 0600, and keeps it on the next run', async () => {
    const files = labSshFiles(home, 'http://127.0.0.1:25801', 'demo');
    const key = await ensureLabKey(files, 'demo');
    assert.match(key, /^ssh-ed25519 [A-Za-z0-9+/=]+ emuctl lab demo$/);
    assert.equal(mode(files.dir), 0o700);
    for (const file of [files.privateKey, files.publicKey, files.knownHosts]) assert.equal(mode(file), 0o600, file);
    assert.match(readFileSync(files.privateKey, 'utf8'), /^-----BEGIN OPENSSH PRIVATE KEY-----/);
    assert.equal(await ensureLabKey(files, 'demo'), key);
    assert.equal(await existingLabKey(files, 'demo'), files);
  });
  it('tightens modes that were loosened', async () => {
    const files = labSshFiles(home, 'http://127.0.0.1:25801', 'loose');
    await ensureLabKey(files, 'loose');
    chmodSync(files.dir, 0o755);
    chmodSync(files.publicKey, 0o644);
    chmodSync(files.knownHosts, 0o666);
    await ensureLabKey(files, 'loose');
    assert.equal(mode(files.dir), 0o700);
    assert.equal(mode(files.publicKey), 0o600);
    assert.equal(mode(files.knownHosts), 0o600);
  });
  it('gives each server and lab its own directory, with any lab name', () => {
    const a = labSshFiles(home, 'http://127.0.0.1:25801', 'demo');
    assert.notEqual(a.dir, labSshFiles(home, 'http://127.0.0.1:25802', 'demo').dir);
    assert.notEqual(a.dir, labSshFiles(home, 'http://127.0.0.1:25801', 'demo2').dir);
    const odd = labSshFiles(home, 'http://x', '../../etc/passwd x');
    assert.equal(join(odd.dir, '..'), join(home, 'labs'));
  });
  it('refuses node ssh for a lab with no key here, naming the fix', async () => {
    await assert.rejects(existingLabKey(labSshFiles(home, 'http://x', 'none'), 'none'), /lab none has no SSH key on this machine: run emuctl lab up/);
  });
  it('forgets host keys by address, or all of them', async () => {
    const files = labSshFiles(home, 'http://127.0.0.1:25801', 'demo');
    writeFileSync(files.knownHosts, [
      '198.19.130.2 ssh-ed25519 AAAA1',
      '198.19.130.20 ssh-ed25519 AAAA2',
      '[198.19.130.3]:22,198.19.130.30 ssh-ed25519 AAAA3',
      'fd00::3 ssh-ed25519 AAAA4',
      '',
    ].join('\n'), { mode: 0o600 });
    await forgetHostKeys(files, ['198.19.130.2', '198.19.130.3', 'fd00::3']);
    assert.equal(readFileSync(files.knownHosts, 'utf8'), '198.19.130.20 ssh-ed25519 AAAA2\n');
    await forgetHostKeys(files, 'all');
    assert.equal(readFileSync(files.knownHosts, 'utf8'), '');
    assert.equal(mode(files.knownHosts), 0o600);
    await forgetHostKeys(labSshFiles(home, 'http://x', 'never-up'), 'all');
  });
});
