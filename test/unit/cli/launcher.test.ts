// The README's way to get the command: bin/ on the PATH gives `emuctl`, from a fresh shell
// that knows nothing but PATH (and node on it), running the built bundle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;

/** Runs `script` in `sh` with PATH = bin/ then node's own directory, and an empty home. */
function shell(script: string) {
  const env = { PATH: `${ROOT}bin:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: '/nonexistent', EMUCTL_HOME: `${ROOT}dist/.no-home` };
  return spawnSync('/bin/sh', ['-c', script], { env, encoding: 'utf8', cwd: '/' });
}

describe('bin/ on the PATH gives the emuctl command', () => {
  it('bin/emuctl is an executable launcher', () => {
    accessSync(`${ROOT}bin/emuctl`, constants.X_OK);
    const r = shell('command -v emuctl');
    assert.equal(r.stdout.trim(), `${ROOT}bin/emuctl`);
  });

  it('emuctl --version and emuctl --help work from any directory', () => {
    const version = shell('emuctl --version');
    assert.deepEqual([version.status, version.stdout, version.stderr], [0, `${VERSION}\n`, '']);
    const help = shell('emuctl --help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: emuctl \[options\] \[command\]/);
    for (const noun of ['daemon', 'project', 'node', 'link', 'switch', 'capture', 'compute']) assert.match(help.stdout, new RegExp(`\\n  ${noun} `));
  });

  it('an unreachable server is exit 3 with one line, through the bundle', () => {
    const r = shell('emuctl --url http://127.0.0.1:9 project list');
    assert.equal(r.status, 3, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^emuctl: cannot reach http:\/\/127\.0\.0\.1:9: connection refused; is the daemon running\? [^\n]*\n$/);
  });
});
