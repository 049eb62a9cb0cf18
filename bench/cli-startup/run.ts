// CLI start-up benchmark: wall time of `emuctl --version` and `emuctl project list --json`
// (against a running daemon), beside bare `node -e 0` measured in the same run.
// Usage: npx tsc -p tsconfig.json && node dist/bench/cli-startup/run.js [--runs N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled to dist/bench/cli-startup/run.js: the package root is three levels up.
const BIN = fileURLToPath(new URL('../../../bin/emuctl.js', import.meta.url));
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 40;
const WARMUP = 3;

const home = mkdtempSync(join(tmpdir(), 'emuctl-bench-'));
const port = await freePort();
const env = { PATH: process.env.PATH, HOME: home, EMUCTL_HOME: home, EMUCTL_URL: `http://127.0.0.1:${port}` };

/** Runs node with `args`; returns wall milliseconds; fails loudly on a non-zero exit. */
function timeRun(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
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

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const cases: [string, string[]][] = [
  ['node -e 0', ['-e', '0']],
  ['emuctl --version', emuctl('--version')],
  ['emuctl --help', emuctl('--help')],
  ['emuctl project list --json', emuctl('project', 'list', '--json')],
];

try {
  timeRun(emuctl('daemon', 'start', '--port', String(port)));
  for (let i = 0; i < 5; i++) timeRun(emuctl('project', 'create', `bench-${i}`));

  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    // Interleaved, so drift in machine load hits every case alike.
    for (const [name, args] of cases) {
      const ms = timeRun(args);
      if (i >= WARMUP) samples.get(name)!.push(ms);
    }
  }

  const base = quantile(samples.get('node -e 0')!, 0.5);
  console.log(`CLI start-up, ${RUNS} runs each (after ${WARMUP} warm-up), node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}\n`);
  console.log('| command | median ms | p90 ms | min ms | × node -e 0 (median) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name] of cases) {
    const values = samples.get(name)!;
    const median = quantile(values, 0.5);
    console.log(`| \`${name}\` | ${median.toFixed(1)} | ${quantile(values, 0.9).toFixed(1)} | ${Math.min(...values).toFixed(1)} | ${(median / base).toFixed(2)} |`);
  }
} finally {
  spawnSync(process.execPath, emuctl('daemon', 'stop', '--port', String(port)), { env, stdio: 'inherit' });
  rmSync(home, { recursive: true, force: true });
}
