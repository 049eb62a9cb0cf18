// Runs every compiled *.test.js under dist/test with node's test runner
// (a bare directory would also run helpers and fixtures, which are not tests).
// A skipped (or todo) test fails the run unless scripts/allowed-skips.json lists it by name, with a
// reason: CI cannot see a skip, so a missing tool must not quietly turn a test off.
// The dataplane suite (dist/test/dataplane) runs on both engines: first with the
// default one (native when the addon is built), then again on the TypeScript one.
// Files run in up to EMUCTL_TEST_LANES (default 3) lanes at once; test-lanes.mjs says which may.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { planLanes } from './test-lanes.mjs';
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

/** Runs the files one after another with node's test runner; resolves to its exit status, output and skips. */
function run(files, env) {
  const scratch = mkdtempSync(join(tmpdir(), 'emuctl-test-run-'));
  const skipsFile = join(scratch, 'skips.jsonl');
  const reporter = process.stdout.isTTY ? 'spec' : 'tap';
  const child = spawn(process.execPath, [
    '--test', '--test-concurrency=1',
    `--test-reporter=${reporter}`, '--test-reporter-destination=stdout',
    `--test-reporter=${join(here, 'skip-reporter.mjs')}`, `--test-reporter-destination=${skipsFile}`,
    ...files,
  ], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      let skips = [];
      try {
        skips = readFileSync(skipsFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
      } catch {
        // no skip was reported
      }
      rmSync(scratch, { recursive: true, force: true });
      resolve({ status: code ?? (signal ? 1 : 0), output: Buffer.concat(output), skips, files });
    });
  });
}

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['dist/test'];
const files = roots.flatMap((root) => (root.endsWith('.js') ? [root] : testFiles(root))).sort();
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}

const dataplane = new Set(files.filter((f) => f.includes(`test${sep}dataplane${sep}`)));
const { engine, reason } = defaultEngine();
console.log(`# dataplane engine: ${engine} (${reason})`);
const twoEngines = dataplane.size > 0 && engine === 'native';
if (twoEngines) console.log(`# the dataplane suite runs again on the TypeScript engine (EMUCTL_DATAPLANE=js): ${dataplane.size} files`);
else if (dataplane.size) console.log('# the native dataplane is not built here: the dataplane suite ran on the TypeScript engine only');
console.log(`# dataplane engines tested: ${twoEngines ? 'native, js' : engine}`);

/** A group's runs: its files, then (for dataplane files) the same files on the TypeScript engine. */
function steps(group, env) {
  const out = [{ files: group, env }];
  const again = group.filter((f) => dataplane.has(f));
  if (twoEngines && again.length) out.push({ files: again, env: { ...env, EMUCTL_DATAPLANE: 'js' } });
  return out;
}

// Lanes: groups of files run side by side (see test-lanes.mjs). Each lane has its own default port
// ranges, below every fixed range a test names, so daemons started without one never race.
const lanes = Math.max(1, Number(process.env.EMUCTL_TEST_LANES ?? 3) || 1);
const { groups, serial } = planLanes(new Map(files.map((f) => [f, readFileSync(f, 'utf8')])));
const laneEnv = (lane) => ({
  ...process.env,
  EMUCTL_UDP_PORT_RANGE: process.env.EMUCTL_UDP_PORT_RANGE ?? `${10000 + lane * 3000}-${10000 + lane * 3000 + 2999}`,
  EMUCTL_CONSOLE_PORT_RANGE: process.env.EMUCTL_CONSOLE_PORT_RANGE ?? `${5000 + lane * 1600}-${5000 + lane * 1600 + 1599}`,
});
const laneCount = Math.min(lanes, 3, Math.max(1, groups.length));
console.log(`# ${files.length} files: ${groups.length} groups in ${laneCount} lane(s), then ${serial.length} file(s) alone`);
// Longest first, roughly: end-to-end and browser files boot real nodes and browsers.
const weight = (group) => Math.max(...group.map((f) => (f.includes(`${sep}e2e${sep}`) ? 3 : f.includes(`${sep}browser${sep}`) ? 2 : f.includes(`${sep}unit${sep}`) ? 0 : 1))) * 1e9
  + group.reduce((sum, f) => sum + statSync(f).size, 0);
const results = [];
const queue = [...groups].sort((a, b) => weight(b) - weight(a));
const report = (r) => {
  process.stdout.write(r.output);
  results.push(r);
};
await Promise.all(Array.from({ length: laneCount }, async (_, lane) => {
  for (let group = queue.shift(); group; group = queue.shift()) {
    for (const step of steps(group, laneCount > 1 ? laneEnv(lane) : process.env)) report(await run(step.files, step.env));
  }
}));
for (const step of steps(serial, process.env)) if (step.files.length) report(await run(step.files, step.env));

const allowed = new Map(JSON.parse(readFileSync(join(here, 'allowed-skips.json'), 'utf8')).map((entry) => [entry.name, entry.reason]));
const skips = results.flatMap((r) => r.skips);
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
/** The failing tests of a run and the first lines of what each said, so a log's tail names them. */
function failures(r) {
  const lines = r.output.toString('utf8').split('\n');
  const out = [];
  lines.forEach((line, i) => {
    if (!/^\s*not ok /.test(line)) return;
    out.push(line);
    const yaml = lines.slice(i + 1, i + 40);
    const end = yaml.findIndex((l) => /^\s*\.\.\.$/.test(l));
    const detail = (end < 0 ? yaml : yaml.slice(0, end)).filter((l) => !/^\s*(---|duration_ms:|stack:|type:)/.test(l));
    out.push(...detail.slice(0, 12));
  });
  return out;
}
const failed = results.filter((r) => r.status !== 0);
for (const r of failed) {
  console.error(`failed run (exit ${r.status}): ${r.files.join(' ')}`);
  for (const line of failures(r)) console.error(`  ${line}`);
}
if (failed.length) console.error(`${failed.length} test run(s) failed: the lines above name them; search the output for "not ok"`);
process.exit(failed[0]?.status ?? 0);
