import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DaemonFlags } from '../../src/daemon/settings.js';
import { loadFactor } from '../../src/client/pacing.js';

const DAEMON_MAIN = fileURLToPath(new URL('./daemon-main.js', import.meta.url));

export interface TestDaemon {
  url: string;
  port: number;
  home: string;
  pid: number;
  child: ChildProcess;
  /** Everything the daemon logged so far. */
  log(): string;
  /** Resolves once the daemon has logged a line matching `pattern` (rejects if it exits first). */
  waitForLog(pattern: RegExp): Promise<void>;
  /** SIGTERM (or another signal) and wait for the exit, SIGKILL after 15 s; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Calls the API: JSON in, JSON out. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Starts the real daemon in a child process on an ephemeral port, with EMUCTL_HOME in a temp dir (or `home`). */
export async function startTestDaemon(opts: { home?: string; flags?: DaemonFlags; env?: NodeJS.ProcessEnv; launcher?: string[] } = {}): Promise<TestDaemon> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'emuctl-test-'));
  const flags: DaemonFlags = { port: 0, projectsDir: join(home, 'projects'), ...opts.flags };
  // A launcher (e.g. setpriv dropping a capability) execs the daemon: the PID stays the daemon's.
  const [command, ...args] = [...(opts.launcher ?? []), process.execPath, DAEMON_MAIN, JSON.stringify(flags)];
  const child = spawn(command, args, {
    env: { ...process.env, EMUCTL_HOME: home, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const logWaiters = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const check of logWaiters) check();
      const m = /listening on (https?:\/\/\S+?),/.exec(output);
      if (m) {
        clearTimeout(tooLate);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`daemon exited with ${code} before listening:\n${output}`)));
    // 15 s on an idle machine, longer on a loaded one (the CLI waits the same way).
    const startMs = Math.round(Math.min(120_000, 15_000 * loadFactor()));
    // A daemon that never listened is killed: left running, it would keep the test process alive.
    const tooLate = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon did not start within ${startMs / 1000} s:\n${output}`));
    }, startMs).unref();
  });
  const port = Number(new URL(url).port);
  return {
    url,
    port,
    home,
    pid: child.pid!,
    child,
    log: () => output,
    waitForLog: (pattern) => new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output)) return;
        logWaiters.delete(check);
        resolve();
      };
      logWaiters.add(check);
      check();
      void exited.then(() => {
        if (logWaiters.delete(check)) reject(new Error(`daemon exited before logging ${pattern}:\n${output}`));
      });
    }),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    api: (method, path, body, headers) => callApi(url, method, path, body, headers),
  };
}

/** One HTTP call with a JSON body (a string body is sent as is). */
export async function callApi(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
  const res = await fetch(url + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Removes a temp home (after the daemon stopped). */
/**
 * Starts several daemons at the same time (each start waits on a child process, not on this one). If one
 * fails, those that started are stopped (and their temp homes removed, when no home was given) before it throws.
 */
export async function startTestDaemons(...opts: Parameters<typeof startTestDaemon>[0][]): Promise<TestDaemon[]> {
  const settled = await Promise.allSettled(opts.map((o) => startTestDaemon(o)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return settled.map((r) => (r as PromiseFulfilledResult<TestDaemon>).value);
  await Promise.all(settled.map(async (r, i) => {
    if (r.status !== 'fulfilled') return;
    await r.value.stop();
    if (!opts[i]?.home) removeHome(r.value.home);
  }));
  throw failed.reason;
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}
