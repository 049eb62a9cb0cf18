// The source tree's import rules, read from the TypeScript sources themselves (type-only imports included):
// - nothing under src/daemon/{compute,controller,dataplane,http}/ imports a kind's own folder
//   (src/daemon/kinds/<kind>/...): only kinds/index.ts (the list) or kinds/kind.ts (the descriptor type);
// - no import cycle among the files of src/ (the C engine's, under native/, is not TypeScript and not read).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The repository's src/, seen from dist/test/unit/daemon/. */
const SRC = fileURLToPath(new URL('../../../../src/', import.meta.url));
const LOWER_LAYERS = ['compute', 'controller', 'dataplane', 'http'].map((d) => `daemon/${d}/`);
const KIND_ENTRY_POINTS = new Set(['daemon/kinds/index.ts', 'daemon/kinds/kind.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** src-relative path with forward slashes. */
const rel = (path: string) => relative(SRC, path).split(sep).join('/');

/** The relative module specifiers a file imports or re-exports, static or dynamic, type-only included. */
function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found.filter((s) => s.startsWith('.'));
}

/** The import graph of src/: src-relative file -> the src-relative files it imports. */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(SRC);
  const known = new Set(files.map(rel));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const base = resolve(dirname(file), spec);
      const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].map(rel);
      const hit = candidates.find((c) => known.has(c));
      if (hit) targets.push(hit);
    }
    graph.set(rel(file), targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

test('the import graph is read from the sources (it sees the kinds list and a known import)', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, `only ${graph.size} source files found under ${SRC}`);
  assert.ok(graph.get('daemon/main.ts')?.includes('daemon/kinds/index.ts'), 'daemon/main.ts imports kinds/index.ts');
});

test('compute, controller, dataplane and http import no kind folder, only kinds/index.ts or kinds/kind.ts', () => {
  const upward: string[] = [];
  for (const [file, targets] of importGraph()) {
    if (!LOWER_LAYERS.some((layer) => file.startsWith(layer))) continue;
    for (const target of targets) {
      if (target.startsWith('daemon/kinds/') && !KIND_ENTRY_POINTS.has(target)) upward.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(upward, []);
});

test('no import cycle in src/ (type-only imports count)', () => {
  assert.deepEqual(cycles(importGraph()).map((c) => c.join(' <-> ')), []);
});

test('the cycle finder sees a type-only circle (the check can fail)', () => {
  const graph = new Map([['lab/model.ts', ['lab/lab-tests/model.ts']], ['lab/lab-tests/model.ts', ['lab/model.ts']], ['lab/parse.ts', ['lab/model.ts']]]);
  assert.deepEqual(cycles(graph), [['lab/lab-tests/model.ts', 'lab/model.ts']]);
});
