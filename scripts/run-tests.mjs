// Runs every compiled *.test.js under dist/test with node's test runner
// (a bare directory would also run helpers and fixtures, which are not tests).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['dist/test'];
const files = roots.flatMap((root) => (root.endsWith('.js') ? [root] : testFiles(root))).sort();
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
