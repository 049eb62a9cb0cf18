// CLI start-up benchmark: wall time of whole `emuctl` processes against a real daemon,
// beside bare `node -e 0` measured in the same run, in 3 rounds.
// Cases: `--version`, `--help`, `node list` (a project of 6 nodes, the default project of
// the profile) and `project list --json`; for scale, `node list` from the unbundled
// modules (dist/src, how the CLI was loaded before the bundle); and the floors, what any
// Node program of this shape pays: an ES module file that only imports node:http (the
// floor the ratios are also given against), the same file making the one request
// `node list` makes (the nodes of the project, by the UUID the profile keeps), and that
// request from a CommonJS -e script. Within a round the cases are interleaved, so drift in
// machine load hits each alike; each round reports its median per case and the ratios to
// `node -e 0` and to the floor; the summary gives the median and range of those ratios.
// Then what each import costs: an ES module -e script that only imports one module (from
// node_modules or the bundle), minus an ES module -e script that imports nothing, in the
// same interleaved rounds.
// Usage: npm run build && node dist/bench/cli-startup/run.js [--runs N] [--rounds R]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberArg } from '../lib/args.js';

// Compiled to dist/bench/cli-startup/run.js: the package root is three levels up.
const BIN = fileURLToPath(new URL('../../../bin/emuctl.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUNS = numberArg('runs', 30);
const ROUNDS = numberArg('rounds', 3);
const WARMUP = 3;

const home = mkdtempSync(join(tmpdir(), 'emuctl-bench-'));
const port = await freePort();
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, EMUCTL_HOME: home, EMUCTL_URL: `http://127.0.0.1:${port}` };

/** Runs node with `args`; returns wall milliseconds; fails loudly on a non-zero exit. */
function timeRun(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function emuctl(...args: string[]): string[] {
  return [BIN, ...args];
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// The one request of `node list`, with nothing but node:http.
const RAW_HTTP_CJS = `const http = require('node:http');
http.get(process.env.EMUCTL_URL + '/v2/projects/' + process.env.BENCH_PROJECT_ID + '/nodes', (r) => {
  let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => JSON.parse(b));
});`;
// The floors as ES module files, as emuctl is (a main file resolved from disk, the ES module loader).
const FLOOR_IMPORT = join(home, 'floor-import.mjs');
writeFileSync(FLOOR_IMPORT, "import 'node:http';\n");
const FLOOR_REQUEST = join(home, 'floor-request.mjs');
writeFileSync(FLOOR_REQUEST, `import http from 'node:http';
http.get(process.env.EMUCTL_URL + '/v2/projects/' + process.env.BENCH_PROJECT_ID + '/nodes', (r) => {
  let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => JSON.parse(b));
});
`);
const UNBUNDLED = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

const BASELINE = 'node -e 0';
const FLOOR = 'floor: ES module file, import node:http only';
const cases: [string, string[]][] = [
  [BASELINE, ['-e', '0']],
  ['emuctl --version', emuctl('--version')],
  ['emuctl --help', emuctl('--help')],
  ['emuctl node list', emuctl('node', 'list')],
  ['emuctl project list --json', emuctl('project', 'list', '--json')],
  ['node list, unbundled (dist/src)', [UNBUNDLED, 'node', 'list']],
  [FLOOR, [FLOOR_IMPORT]],
  ['floor: ES module file, node:http, the 1 request of node list', [FLOOR_REQUEST]],
  ['floor: CommonJS -e, node:http, the 1 request', ['-e', RAW_HTTP_CJS]],
];

// What each import costs on its own, from the package root (so node_modules resolves).
const importOnly = (specifier: string): string[] => ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`];
const builtinOnly = (name: string): string[] => ['--input-type=module', '-e', `process.getBuiltinModule(${JSON.stringify(name)})`];
const IMPORT_BASE = 'ES module -e, importing nothing';
const bundled = (file: string): string => fileURLToPath(new URL(`../../cli/${file}`, import.meta.url));
const imports: [string, string[]][] = [
  [IMPORT_BASE, ['--input-type=module', '-e', '']],
  ['node:http', importOnly('node:http')],
  // As got's require() loads them (an ES module import of node:crypto also loads webcrypto).
  ['node:crypto, required (got no longer loads it)', builtinOnly('node:crypto')],
  ['node:zlib, required (got no longer loads it)', builtinOnly('node:zlib')],
  ['commander (node_modules)', importOnly('commander')],
  ['chalk (node_modules)', importOnly('chalk')],
  ['got (node_modules, unbundled)', importOnly('got')],
  ['dist/cli/core.js (the bundle: commander, chalk, got, client, commands)', importOnly(bundled('core.js'))],
  ['dist/cli/pkg-yaml.js + pkg-ajv.js (lab files only)', ['--input-type=module', '-e', `await Promise.all([import(${JSON.stringify(bundled('pkg-yaml.js'))}), import(${JSON.stringify(bundled('pkg-ajv.js'))})])`]],
];
cases.push(...imports);
const IMPORT_NAMES = new Set(imports.map(([name]) => name));

/** One round: every case RUNS times, interleaved; the median of each case. */
function round(): Map<string, number> {
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const [name, args] of cases) {
      const ms = timeRun(args);
      if (i >= WARMUP) samples.get(name)!.push(ms);
    }
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

try {
  timeRun(emuctl('daemon', 'start', '--port', String(port)));
  timeRun(emuctl('project', 'create', 'bench', '--use'));
  for (let i = 0; i < 4; i++) timeRun(emuctl('project', 'create', `other-${i}`));
  for (let i = 1; i <= 3; i++) timeRun(emuctl('switch', 'create', `SW${i}`));
  for (let i = 1; i <= 3; i++) timeRun(emuctl('node', 'create', `HUB${i}`, '--type', 'ethernet_hub'));
  const shown = execFileSync(process.execPath, emuctl('project', 'show', '--json'), { env, encoding: 'utf8' });
  env.BENCH_PROJECT_ID = (JSON.parse(shown) as { project_id: string }).project_id;

  console.log(`CLI start-up: ${ROUNDS} rounds of ${RUNS} runs per case (after ${WARMUP} warm-up), node ${process.version}, `
    + `${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}\n`);
  const rounds: { load: number; medians: Map<string, number> }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const load = loadavg()[0];
    rounds.push({ load, medians: round() });
  }

  console.log(`| command | ${rounds.map((_, i) => `round ${i + 1}: median ms (× ${BASELINE}, × floor)`).join(' | ')} | × ${BASELINE}: median [range] | × floor: median [range] |`);
  console.log(`|---|${rounds.map(() => '---:').join('|')}|---:|---:|`);
  const summary = (values: number[]): string => `${median(values).toFixed(2)} [${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}]`;
  for (const [name] of cases) {
    if (IMPORT_NAMES.has(name)) continue;
    const ratios = rounds.map(({ medians }) => medians.get(name)! / medians.get(BASELINE)!);
    const toFloor = rounds.map(({ medians }) => medians.get(name)! / medians.get(FLOOR)!);
    const cells = rounds.map(({ medians }, i) => `${medians.get(name)!.toFixed(1)} (${ratios[i].toFixed(2)}, ${toFloor[i].toFixed(2)})`);
    console.log(`| ${name.startsWith('emuctl') || name === BASELINE ? `\`${name}\`` : name} | ${cells.join(' | ')} | ${summary(ratios)} | ${summary(toFloor)} |`);
  }
  console.log(`\nWhat each import costs: an ES module -e script that imports only it, minus one that imports nothing (${rounds.map(({ medians }) => medians.get(IMPORT_BASE)!.toFixed(1)).join(', ')} ms), same rounds (ms)\n`);
  console.log(`| import | ${rounds.map((_, i) => `round ${i + 1}`).join(' | ')} | median [range] |`);
  console.log(`|---|${rounds.map(() => '---:').join('|')}|---:|`);
  for (const [name] of imports) {
    if (name === IMPORT_BASE) continue;
    const costs = rounds.map(({ medians }) => medians.get(name)! - medians.get(IMPORT_BASE)!);
    console.log(`| ${name} | ${costs.map((c) => c.toFixed(1)).join(' | ')} | ${median(costs).toFixed(1)} [${Math.min(...costs).toFixed(1)}–${Math.max(...costs).toFixed(1)}] |`);
  }
  console.log(`\nload average (1 min) at the start of each round: ${rounds.map(({ load }) => load.toFixed(2)).join(', ')}`);
} finally {
  spawnSync(process.execPath, emuctl('daemon', 'stop', '--port', String(port)), { env, stdio: 'inherit' });
  rmSync(home, { recursive: true, force: true });
}
