// The bundled core runs through V8's code cache (src/cli/code-cache.ts): a cache is made,
// accepted, and a bad one only costs the compilation. The built bundle's own cache is
// checked in a fresh node, as bin/emuctl.js would load it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { compileBundle, importRelativeTo } from '../../../src/cli/code-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'emuctl-code-cache-'));
const bundle = join(dir, 'bundle.cjs');
writeFileSync(bundle, [
  'const { basename } = require("node:path");',
  'exports.name = basename(__filename);',
  'exports.square = (n) => n * n;',
  'exports.helper = () => __emuctlImport("./helper.mjs");',
].join('\n'));
writeFileSync(join(dir, 'helper.mjs'), 'export const answer = 42;\n');
const CODE_CACHE_MODULE = pathToFileURL(fileURLToPath(new URL('../../../src/cli/code-cache.js', import.meta.url))).href;

/** Runs `body` in a fresh node (no flags) with compileBundle and saveCodeCache in scope; its stdout, trimmed. */
function probe(body: string): string {
  const script = `import(${JSON.stringify(CODE_CACHE_MODULE)}).then(({ compileBundle, saveCodeCache }) => { ${body} })`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const host = importRelativeTo(pathToFileURL(bundle), (specifier) => import(specifier));

describe('code cache for the bundled core', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs CommonJS text with require, __filename and the host import()', async () => {
    const exports = compileBundle(bundle).run(host) as { name: string; square(n: number): number; helper(): Promise<{ answer: number }> };
    assert.equal(exports.name, 'bundle.cjs');
    assert.equal(exports.square(7), 49);
    assert.equal((await exports.helper()).answer, 42);
  });

  it('a saved cache is accepted by another process; a damaged one is refused and the code still runs', () => {
    // Each step in a fresh node: within one process V8 reuses its own compilation and ignores the cache.
    const cache = join(dir, 'bundle.cjs.cache');
    assert.equal(probe(`const b = compileBundle(${JSON.stringify(bundle)}); b.run(() => undefined).square(3);`
      + `console.log(saveCodeCache(b.script, ${JSON.stringify(cache)}) > 0)`), 'true');
    assert.equal(probe(`console.log(compileBundle(${JSON.stringify(bundle)}, ${JSON.stringify(cache)}).cacheRejected)`), 'false');

    writeFileSync(cache, Buffer.from('not a V8 code cache'));
    assert.equal(probe(`const b = compileBundle(${JSON.stringify(bundle)}, ${JSON.stringify(cache)});`
      + 'console.log(b.cacheRejected, b.run(() => undefined).square(4))'), 'true 16');
    assert.equal(probe(`console.log(compileBundle(${JSON.stringify(bundle)}, ${JSON.stringify(join(dir, 'missing.cache'))}).cacheRejected)`), 'false');
  });

  it('npm run build leaves dist/cli/core.cjs with a cache that a fresh node accepts', () => {
    const core = fileURLToPath(new URL('../../../cli/core.cjs', import.meta.url));
    assert.ok(existsSync(core) && existsSync(`${core}.cache`), 'dist/cli/core.cjs and its .cache are built');
    assert.equal(probe(`console.log(compileBundle(${JSON.stringify(core)}, ${JSON.stringify(`${core}.cache`)}).cacheRejected)`), 'false');
  });
});
