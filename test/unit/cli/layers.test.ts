// Dependencies point one way on the CLI side: cli → commands → lab → client/render/config.
// Read from the TypeScript sources, so a back edge fails here before anyone notices a cycle.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

// Compiled to dist/test/unit/cli/: the repository root is four levels up.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SRC = join(ROOT, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The src/ folder (first segment) each relative import of `file` lands in, with the import text. */
function importedLayers(file: string): { layer: string; specifier: string }[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1]);
  return specifiers.map((specifier) => {
    const target = relative(SRC, resolve(dirname(file), specifier));
    return { layer: target.split(/[\\/]/)[0], specifier };
  });
}

function backEdges(layer: string, forbidden: readonly string[]): string[] {
  return tsFiles(join(SRC, layer)).flatMap((file) => importedLayers(file)
    .filter((i) => forbidden.includes(i.layer))
    .map((i) => `${relative(ROOT, file)} imports ${i.specifier}`));
}

describe('CLI layers depend one way', () => {
  it('src/client imports nothing from cli, commands, render or the daemon', () => {
    assert.deepEqual(backEdges('client', ['cli', 'commands', 'render', 'daemon']), []);
  });

  it('src/lab (the lab file model, planner and applier) imports nothing from cli, commands or the daemon', () => {
    assert.deepEqual(backEdges('lab', ['cli', 'commands', 'daemon']), []);
  });

  it('src/render and src/config import nothing from cli or commands', () => {
    assert.deepEqual([...backEdges('render', ['cli', 'commands']), ...backEdges('config', ['cli', 'commands'])], []);
  });

  it('the error types are a leaf module', () => {
    assert.deepEqual(importedLayers(join(SRC, 'client', 'errors.ts')), []);
    assert.doesNotMatch(readFileSync(join(SRC, 'client', 'errors.ts'), 'utf8'), /^import /m);
  });
});
