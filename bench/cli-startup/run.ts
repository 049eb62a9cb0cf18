// CLI start-up benchmark: wall time of whole `emuctl` processes against a real daemon,
// beside bare `node -e 0` measured in the same run, in 3 rounds.
// Cases: `--version`, `--help`, `node list` (a project of 6 nodes, the default project of
// the profile) and `project list --json`; for scale, `node list` from the unbundled
// modules (dist/src, how the CLI was loaded before the bundle), and the floor of any Node
// HTTP client: bare node:http making the one request `node list` makes (the nodes of the
// project, by the UUID the profile keeps), and the three it made before (projects, then
// nodes and computes); the one request again from an ES module, as emuctl is. Within a
// round the cases are interleaved, so drift in machine load hits each alike; each round
// reports its median per case and the ratio to `node -e 0`, and the summary gives the
// median and range of those ratios.
// Then what each import costs: a process that only imports one module (as an ES module,
// from node_modules or the bundle) beside `node -e 0`, in the same interleaved rounds.
// Usage: npm run build && node dist/bench/cli-startup/run.js [--runs N] [--rounds R]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

// The requests of `node list`, with nothing but node:http: GET_JSON then one of the two below.
const GET_JSON = `const http = require('node:http');
const get = (p) => new Promise((ok, ko) => http.get(process.env.EMUCTL_URL + '/v2/' + p, (r) => {
  let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => ok(JSON.parse(b)));
}).on('error', ko));`;
const RAW_HTTP_NOW = `${GET_JSON}\nget('projects/' + process.env.BENCH_PROJECT_ID + '/nodes');`;
// The same request from an ES module, as emuctl is: what starting the ES module loader adds.
const RAW_HTTP_NOW_ESM = `import http from 'node:http';
http.get(process.env.EMUCTL_URL + '/v2/projects/' + process.env.BENCH_PROJECT_ID + '/nodes', (r) => {
  let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => JSON.parse(b));
});`;
const RAW_HTTP_BEFORE = `${GET_JSON}
get('projects').then((ps) => Promise.all([get('projects/' + ps.find((p) => p.name === 'bench').project_id + '/nodes'), get('computes')]));`;
const UNBUNDLED = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

const BASELINE = 'node -e 0';
const cases: [string, string[]][] = [
  [BASELINE, ['-e', '0']],
  ['emuctl --version', emuctl('--version')],
  ['emuctl --help', emuctl('--help')],
  ['emuctl node list', emuctl('node', 'list')],
  ['emuctl project list --json', emuctl('project', 'list', '--json')],
  ['node list, unbundled (dist/src)', [UNBUNDLED, 'node', 'list']],
  ['floor: node:http, the 1 request of node list', ['-e', RAW_HTTP_NOW]],
  ['floor as an ES module: node:http, the 1 request', ['--input-type=module', '-e', RAW_HTTP_NOW_ESM]],
  ['node:http, the 3 requests node list made before', ['-e', RAW_HTTP_BEFORE]],
];

// What each import costs on its own, from the package root (so node_modules resolves).
const importOnly = (specifier: string): string[] => ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`];
const CORE = fileURLToPath(new URL('../../cli/core.js', import.meta.url));
const imports: [string, string[]][] = [
  ['node:http', importOnly('node:http')],
  ['commander (node_modules)', importOnly('commander')],
  ['chalk (node_modules)', importOnly('chalk')],
  ['got (node_modules, unbundled)', importOnly('got')],
  ['dist/cli/core.js (the bundle: commander, chalk, got, client, commands)', importOnly(CORE)],
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

  console.log(`| command | ${rounds.map((_, i) => `round ${i + 1} median ms (× ${BASELINE})`).join(' | ')} | × ${BASELINE}: median [range] |`);
  console.log(`|---|${rounds.map(() => '---:').join('|')}|---:|`);
  for (const [name] of cases) {
    if (IMPORT_NAMES.has(name)) continue;
    const ratios = rounds.map(({ medians }) => medians.get(name)! / medians.get(BASELINE)!);
    const cells = rounds.map(({ medians }, i) => `${medians.get(name)!.toFixed(1)} (${ratios[i].toFixed(2)})`);
    console.log(`| ${name.startsWith('emuctl') || name === BASELINE ? `\`${name}\`` : name} | ${cells.join(' | ')} | ${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}] |`);
  }
  console.log(`\nWhat each import costs: a process that imports only it, minus \`${BASELINE}\` in the same round (ms)\n`);
  console.log(`| import | ${rounds.map((_, i) => `round ${i + 1}`).join(' | ')} | median [range] |`);
  console.log(`|---|${rounds.map(() => '---:').join('|')}|---:|`);
  for (const [name] of imports) {
    const costs = rounds.map(({ medians }) => medians.get(name)! - medians.get(BASELINE)!);
    console.log(`| ${name} | ${costs.map((c) => c.toFixed(1)).join(' | ')} | ${median(costs).toFixed(1)} [${Math.min(...costs).toFixed(1)}–${Math.max(...costs).toFixed(1)}] |`);
  }
  console.log(`\nload average (1 min) at the start of each round: ${rounds.map(({ load }) => load.toFixed(2)).join(', ')}`);
} finally {
  spawnSync(process.execPath, emuctl('daemon', 'stop', '--port', String(port)), { env, stdio: 'inherit' });
  rmSync(home, { recursive: true, force: true });
}
