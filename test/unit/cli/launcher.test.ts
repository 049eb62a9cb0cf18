// The README's way to get the command: bin/ on the PATH gives `emuctl`, from a fresh shell
// that knows nothing but PATH (and node on it), running the built bundle; the launcher and
// the bundle are ES modules, like the rest of the project.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

  it('the launcher and the bundle are ES modules: no CommonJS file, no module type of its own in bin/', () => {
    assert.equal((JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { type: string }).type, 'module');
    assert.equal(existsSync(`${ROOT}bin/package.json`), false);
    const built = readdirSync(`${ROOT}dist/cli`);
    // Beside the entry and the core: packages only some commands import (yaml and ajv for lab files).
    assert.deepEqual(built.filter((file) => file.endsWith('.js') && !file.startsWith('pkg-')).sort(), ['core.js', 'emuctl.js']);
    assert.deepEqual(built.filter((file) => /\.c[jt]s$/.test(file)), []);
  });

  it('a command loads the built-in modules its own code uses, not those of other commands', () => {
    const script = `process.argv = [process.argv[0], 'emuctl', '--url', 'http://127.0.0.1:9', 'project', 'list'];
process.on('exit', () => process.stderr.write('\\n' + JSON.stringify(process.moduleLoadList)));
import(${JSON.stringify(pathToFileURL(`${ROOT}bin/emuctl.js`).href)});`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', EMUCTL_HOME: `${ROOT}dist/.no-home` } });
    assert.equal(r.status, 3, r.stderr);
    const loaded = new Set((JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!) as string[]).map((entry) => entry.replace(/^NativeModule /, '')));
    assert.ok(loaded.has('http') && loaded.has('zlib'), 'got and its request ran');
    // child_process: the daemon noun; tty: colours; internal/crypto/webcrypto: what an ES module import of node:crypto reads.
    for (const other of ['child_process', 'tty', 'internal/crypto/webcrypto', 'fs/promises']) assert.equal(loaded.has(other), false, other);
  });
});
