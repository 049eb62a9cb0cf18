// The README's way to get the command: bin/ on the PATH gives `emuctl`, from a fresh shell
// that knows nothing but PATH (and node on it), running the built bundle; the launcher and
// the bundle are ES modules, like the rest of the project.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

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
    // Beside the entry and the core: one file per noun, and packages only some commands import (yaml and ajv for lab files).
    assert.deepEqual(built.filter((file) => file.endsWith('.js') && !/^(noun|pkg)-[\w-]+\.js$/.test(file)).sort(), ['core.js', 'emuctl.js']);
    assert.ok(built.includes('noun-node.js') && built.includes('pkg-yaml.js'), built.join(' '));
    assert.deepEqual(built.filter((file) => /\.c[jt]s$/.test(file)), []);
  });

  it('a command loads the built-in modules its own code uses, not those of other commands', () => {
    // An ES module -e script: a CommonJS one loads node:crypto for itself.
    const script = `process.argv = [process.argv[0], 'emuctl', '--url', 'http://127.0.0.1:9', 'project', 'list'];
process.on('exit', () => process.stderr.write('\\n' + JSON.stringify(process.moduleLoadList)));
await import(${JSON.stringify(pathToFileURL(`${ROOT}bin/emuctl.js`).href)});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', EMUCTL_HOME: `${ROOT}dist/.no-home` } });
    assert.equal(r.status, 3, r.stderr);
    const loaded = new Set((JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!) as string[]).map((entry) => entry.replace(/^NativeModule /, '')));
    assert.ok(loaded.has('http') && loaded.has('net'), 'got and its request ran');
    // child_process: the daemon noun; tty: colours; internal/crypto/webcrypto: what an ES module import of node:crypto reads;
    // crypto: got's request ids, made only for diagnostics channel subscribers; zlib: only for compressed responses.
    for (const other of ['child_process', 'tty', 'internal/crypto/webcrypto', 'fs/promises', 'crypto', 'zlib']) assert.equal(loaded.has(other), false, other);
  });

  it("got's diagnostics channels still get one request id per request", () => {
    const script = `import diagnostics from 'node:diagnostics_channel';
const seen = [];
for (const name of ['got:request:create', 'got:request:error']) diagnostics.subscribe(name, (message) => seen.push([name, Object.keys(message)[0], message.requestId]));
process.argv = [process.argv[0], 'emuctl', '--url', 'http://127.0.0.1:9', 'project', 'list'];
process.on('exit', () => process.stderr.write('\\n' + JSON.stringify(seen)));
await import(${JSON.stringify(pathToFileURL(`${ROOT}bin/emuctl.js`).href)});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', EMUCTL_HOME: `${ROOT}dist/.no-home` } });
    assert.equal(r.status, 3, r.stderr);
    const seen = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!) as [string, string, string][];
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    assert.equal(seen[0][0], 'got:request:create');
    assert.ok(seen.some(([name]) => name === 'got:request:error'));
    for (const [, first, id] of seen) {
      assert.equal(first, 'requestId');
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // got retries a refused connection as a request of its own; each request keeps its id.
    const creates = seen.filter(([name]) => name === 'got:request:create').map(([, , id]) => id);
    assert.equal(new Set(creates).size, creates.length);
  });

  it('compressed responses still decode (the bundle loads node:zlib when one comes)', async () => {
    const projects = [{ name: 'packed', project_id: '0f6d1c1e-8c1b-4a57-9a0e-2f4b6f3f0a01', status: 'opened', filename: 'packed.gns3' }];
    const encoders: Record<string, (data: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    const seen: string[] = [];
    const server = createServer((req, res) => {
      const listing = String(req.url).includes('/v2/projects');
      const encoding = listing ? nextEncoding.shift()! : 'identity';
      // A --url without a saved API version is probed first (/v3/version, then /v2/version): only the listing counts here.
      if (listing) seen.push(String(req.headers['accept-encoding']));
      const body = Buffer.from(JSON.stringify(projects));
      res.writeHead(200, { 'content-type': 'application/json', ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }) });
      res.end(encoding === 'identity' ? body : encoders[encoding](body));
    });
    const nextEncoding = ['gzip', 'deflate', 'br'];
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const r = await runAsync(['--url', url, 'project', 'list', '--json']);
        assert.equal(r.status, 0, `${encoding}: ${r.stderr}`);
        assert.deepEqual((JSON.parse(r.stdout) as { name: string }[]).map((p) => p.name), ['packed'], encoding);
      }
      assert.deepEqual(seen, ['gzip, deflate, br', 'gzip, deflate, br', 'gzip, deflate, br']);
    } finally {
      server.close();
    }
  });
});

/** Runs the launcher without blocking the event loop (the test's own server answers it). */
function runAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${ROOT}bin/emuctl.js`, ...args], { env: { PATH: process.env.PATH, HOME: '/nonexistent', EMUCTL_HOME: `${ROOT}dist/.no-home` } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
