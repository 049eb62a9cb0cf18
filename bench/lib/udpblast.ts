// Shared bench helpers: build and run the C load tools of ../shared/tools/udpblast,
// parse their key=value summaries, and pick UDP ports outside the ephemeral range
// (32768-60999) and the daemon's tunnel range (10000-20000).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The udpblast sources: UDPBLAST_DIR, else `shared/tools/udpblast` beside the repository or beside one of its parent directories (a worktree). */
function toolSources(): string {
  if (process.env.UDPBLAST_DIR) return process.env.UDPBLAST_DIR;
  for (let dir = REPO; ; dir = dirname(dir)) {
    const candidate = resolve(dir, '../shared/tools/udpblast');
    if (existsSync(join(candidate, 'Makefile'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(`udpblast sources not found in shared/tools/udpblast beside ${REPO} or its parents (set UDPBLAST_DIR)`);
}

/** Builds udpblast/udpsink/udprelay/udpping out of tree (make is a no-op when they are up to date); returns their directory. */
export function buildTools(): string {
  const src = toolSources();
  const out = join(tmpdir(), 'udpblast-build');
  execFileSync('make', ['-s', '-C', src, `O=${out}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  return out;
}

/**
 * Builds a load tool whose C source is in the repository (`bench/...`) next to udpblast's
 * binaries, with udpblast's common.h (frame layout, helpers) on the include path; rebuilt
 * when the source is newer. Returns the binary's path.
 */
export function buildBenchTool(source: string): string {
  const tools = buildTools();
  const src = join(REPO, source);
  const bin = join(tools, basename(source, '.c'));
  if (!existsSync(bin) || statSync(bin).mtimeMs < statSync(src).mtimeMs) {
    execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-std=gnu11', '-I', toolSources(), '-o', bin, src], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return bin;
}

/** Parses the last `key=value ...` line a tool printed. */
export function kv(text: string): Record<string, number> {
  const line = text.trim().split('\n').filter((l) => l.includes('=')).pop() ?? '';
  const out: Record<string, number> = {};
  for (const m of line.matchAll(/(\w+)=(-?[\d.]+)/g)) out[m[1]] = Number(m[2]);
  return out;
}

/** A running child whose stdout is collected. */
export interface Running {
  child: ChildProcess;
  /** Resolves with stdout when the process ends (rejects after timeoutMs, killing it). */
  done: Promise<string>;
}

/** Starts a process, collecting stdout; stderr is shown only with BENCH_VERBOSE. */
export function start(bin: string, args: string[], timeoutMs = 60_000): Running {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  const done = new Promise<string>((res, rej) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`${bin} ${args.join(' ')} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', rej);
    child.on('exit', () => {
      clearTimeout(timer);
      res(out);
    });
  });
  return { child, done };
}

/** Runs a process to completion and returns its stdout. */
export function run(bin: string, args: string[], timeoutMs?: number): Promise<string> {
  return start(bin, args, timeoutMs).done;
}

/** Stops a background child (SIGTERM, then SIGKILL after 2 s) and waits for it. */
export async function stop(r: Running): Promise<string> {
  if (r.child.exitCode === null && r.child.signalCode === null) {
    r.child.kill('SIGTERM');
    const timer = setTimeout(() => r.child.kill('SIGKILL'), 2000);
    try {
      return await r.done;
    } finally {
      clearTimeout(timer);
    }
  }
  return r.done;
}

async function isFree(port: number): Promise<boolean> {
  const s = dgram.createSocket('udp4');
  try {
    s.bind(port, '127.0.0.1');
    await Promise.race([once(s, 'listening'), once(s, 'error').then(([e]) => Promise.reject(e))]);
    return true;
  } catch {
    return false;
  } finally {
    s.close();
  }
}

/** `count` consecutive free UDP ports in 21000-29999 (checked by binding them). */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 21000 + Math.floor(Math.random() * (9000 - count));
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = await isFree(p);
    if (ok) return base;
  }
  throw new Error('no free block of UDP ports in 21000-29999');
}

/** One line describing the machine, for the results table. */
export function machineLine(): string {
  const c = cpus();
  return `${c.length} cores (${c[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
