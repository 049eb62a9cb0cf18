// ssh's arguments for a lab node (src/lab/ssh-args.ts), read back by the real ssh (-G prints the
// configuration it would use, and connects to nothing).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { bareAddress, labSshArgs } from '../../../src/lab/ssh-args.js';

// ssh -G leaves out an identity file that does not exist: the test's is a real (empty) file.
const dir = mkdtempSync(join(tmpdir(), 'emuctl-ssh-args-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const FILES = { privateKey: join(dir, 'id_ed25519'), knownHosts: join(dir, 'known_hosts') };
writeFileSync(FILES.privateKey, '', { mode: 0o600 });

describe('lab ssh arguments', () => {
  it('log in as root with the lab key only, accept a new host key into the lab known_hosts, never prompt', () => {
    const args = labSshArgs(FILES, '198.19.130.5');
    assert.deepEqual(args.slice(-3), ['-l', 'root', '198.19.130.5']);
    const config = execFileSync('ssh', ['-G', ...args], { encoding: 'utf8' });
    for (const line of ['user root', 'hostname 198.19.130.5', `identityfile ${FILES.privateKey}`, 'identitiesonly yes', 'batchmode yes',
      'stricthostkeychecking accept-new', `userknownhostsfile ${FILES.knownHosts}`, 'globalknownhostsfile /dev/null', 'hashknownhosts no', 'loglevel ERROR']) {
      assert.match(config, new RegExp(`^${line.replace(/[.]/g, '\\.')}$`, 'm'));
    }
  });
  it('puts a remote command after --, its words as given', () => {
    const args = labSshArgs(FILES, '198.19.130.5', ['sh', '-c', 'exit 3']);
    assert.deepEqual(args.slice(-6), ['root', '198.19.130.5', '--', 'sh', '-c', 'exit 3']);
    // ssh still reads them as a command, not as its own options.
    assert.match(execFileSync('ssh', ['-G', ...args], { encoding: 'utf8' }), /^hostname 198\.19\.130\.5$/m);
  });
  it('takes the address off its prefix length', () => {
    assert.equal(bareAddress('198.19.130.5/24'), '198.19.130.5');
    assert.equal(bareAddress('fd00::5/64'), 'fd00::5');
    assert.equal(bareAddress(null), undefined);
    assert.equal(bareAddress(''), undefined);
    // The server's value becomes ssh's host argument: anything but an address is no address.
    for (const hostile of ['-oProxyCommand=touch x', 'host\nProxyCommand x', 'r1.example', '198.19.130.5 -v']) assert.equal(bareAddress(hostile), undefined, hostile);
  });
});
