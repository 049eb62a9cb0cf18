// Runs every compiled *.test.js under dist/test with node's test runner
// (a bare directory would also run helpers and fixtures, which are not tests).
// The dataplane suite (dist/test/dataplane) runs on both engines: first with the
// default one (native when the addon is built), then again on the TypeScript one.
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { spawnSync } from 'node:child_process';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

/** The engine createDataplane() picks in this environment, and why. */
function defaultEngine() {
  const probe = spawnSync(process.execPath, ['--input-type=module', '-e',
    "const m = await import('./dist/src/daemon/dataplane/index.js'); console.log(JSON.stringify(m.chooseEngine()))"], { encoding: 'utf8' });
  if (probe.status !== 0) return { engine: 'unknown', reason: probe.stderr.trim().split('\n').pop() };
  return JSON.parse(probe.stdout);
}

const run = (files, env = process.env) => spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit', env }).status ?? 1;

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['dist/test'];
const files = roots.flatMap((root) => (root.endsWith('.js') ? [root] : testFiles(root))).sort();
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
const dataplane = files.filter((f) => f.includes(`${sep}dataplane${sep}`) && f.includes(`test${sep}dataplane${sep}`));
const { engine, reason } = defaultEngine();
console.log(`# dataplane engine: ${engine} (${reason})`);
let status = run(files);
if (dataplane.length && engine === 'native') {
  console.log(`# dataplane suite again on the TypeScript engine (EMUCTL_DATAPLANE=js): ${dataplane.length} files`);
  const js = run(dataplane, { ...process.env, EMUCTL_DATAPLANE: 'js' });
  status ||= js;
} else if (dataplane.length) {
  console.log('# the native dataplane is not built here: the dataplane suite ran on the TypeScript engine only');
}
console.log(`# dataplane engines tested: ${engine === 'native' && dataplane.length ? 'native, js' : engine}`);
process.exit(status);
