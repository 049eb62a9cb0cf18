// Runs every compiled *.test.js under dist/test with node's test runner
// (a bare directory would also run helpers and fixtures, which are not tests).
// A skipped (or todo) test fails the run unless scripts/allowed-skips.json lists it by name, with a
// reason: CI cannot see a skip, so a missing tool must not quietly turn a test off.
// The dataplane suite (dist/test/dataplane) runs on both engines: first with the
// default one (native when the addon is built), then again on the TypeScript one.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

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

/** Runs the files with node's test runner; returns its exit status and the skips it reported. */
function run(files, env = process.env) {
  const scratch = mkdtempSync(join(tmpdir(), 'emuctl-test-run-'));
  const skipsFile = join(scratch, 'skips.jsonl');
  const reporter = process.stdout.isTTY ? 'spec' : 'tap';
  const result = spawnSync(process.execPath, [
    '--test',
    `--test-reporter=${reporter}`, '--test-reporter-destination=stdout',
    `--test-reporter=${join(here, 'skip-reporter.mjs')}`, `--test-reporter-destination=${skipsFile}`,
    ...files,
  ], { stdio: 'inherit', env });
  let skips = [];
  try {
    skips = readFileSync(skipsFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    // no skip was reported
  }
  rmSync(scratch, { recursive: true, force: true });
  return { status: result.status ?? 1, skips };
}

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['dist/test'];
const files = roots.flatMap((root) => (root.endsWith('.js') ? [root] : testFiles(root))).sort();
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}

const dataplane = files.filter((f) => f.includes(`test${sep}dataplane${sep}`));
const { engine, reason } = defaultEngine();
console.log(`# dataplane engine: ${engine} (${reason})`);
const runs = [run(files)];
if (dataplane.length && engine === 'native') {
  console.log(`# dataplane suite again on the TypeScript engine (EMUCTL_DATAPLANE=js): ${dataplane.length} files`);
  runs.push(run(dataplane, { ...process.env, EMUCTL_DATAPLANE: 'js' }));
} else if (dataplane.length) {
  console.log('# the native dataplane is not built here: the dataplane suite ran on the TypeScript engine only');
}
console.log(`# dataplane engines tested: ${engine === 'native' && dataplane.length ? 'native, js' : engine}`);

const allowed = new Map(JSON.parse(readFileSync(join(here, 'allowed-skips.json'), 'utf8')).map((entry) => [entry.name, entry.reason]));
const skips = runs.flatMap((r) => r.skips);
const refused = skips.filter((s) => !allowed.has(s.name));
for (const s of skips) {
  const where = s.file ? ` (${s.file})` : '';
  if (allowed.has(s.name)) console.error(`allowed ${s.kind}: ${s.name}${where}: ${s.reason} [listed: ${allowed.get(s.name)}]`);
  else console.error(`${s.kind} not allowed: ${s.name}${where}: ${s.reason}`);
}
if (refused.length) {
  console.error(`${refused.length} test(s) did not run: install what they need (bash scripts/setup.sh) or list them in scripts/allowed-skips.json with a reason`);
  process.exit(1);
}
process.exit(runs.find((r) => r.status !== 0)?.status ?? 0);
