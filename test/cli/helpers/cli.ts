import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { createFactory, type Context, type Factory } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/program.js';
import { runCli } from '../../../src/cli/run.js';
import { BufferOutput } from '../../../src/render/buffer-output.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';

/** bin/emuctl.js (tests run from dist/test/cli/helpers/). */
export const EMUCTL_BIN = fileURLToPath(new URL('../../../../bin/emuctl.js', import.meta.url));

/** A fresh EMUCTL_HOME; remove it with removeTempHome. */
export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'emuctl-cli-'));
}

/** Removes a temp home. */
export function removeTempHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** An environment for the CLI that knows nothing of the caller's profiles, colours or proxies. */
export function cliEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, EMUCTL_HOME: home, ...extra };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}

/** A real daemon and a fresh CLI home whose EMUCTL_URL points at it. */
export interface CliDaemon {
  daemon: TestDaemon;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Starts a daemon (options as startTestDaemon's) and makes a CLI home and environment for it. */
export async function startCliDaemon(options: Parameters<typeof startTestDaemon>[0] = {}): Promise<CliDaemon> {
  const daemon = await startTestDaemon(options);
  const home = tempHome();
  return { daemon, home, env: cliEnv(home, { EMUCTL_URL: daemon.url }) };
}

/** Stops the daemon and removes both homes; either may be missing when the start failed. */
export async function stopCliDaemon({ daemon, home }: Partial<CliDaemon>): Promise<void> {
  if (daemon) {
    await daemon.stop();
    removeHome(daemon.home);
  }
  if (home) removeTempHome(home);
}

/** What a CLI run produced. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process with a buffer-backed output. */
export async function runInProcess(argv: string[], env: NodeJS.ProcessEnv, options: { isTTY?: boolean; stdin?: NodeJS.ReadableStream } = {}): Promise<CliResult & { out: BufferOutput }> {
  const out = new BufferOutput({ isTTY: options.isTTY, env });
  const code = await runCli(argv, { out, env, stdin: options.stdin });
  return { code, stdout: out.stdoutText(), stderr: out.stderrText(), out };
}

/** Spawns `node bin/emuctl.js argv…` (asynchronously, so this process keeps reaping its own children). */
export function runBin(argv: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [EMUCTL_BIN, ...argv], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

/** A verb's builder: (factory, run) → its commander command. */
export type VerbBuilder<O> = (f: Factory, run: (opts: O, ctx: Context) => Promise<void>) => Command;

/**
 * Parses `argv` through the real program shape (global options, then `noun`, then the verb)
 * with a spy in place of run(); returns the options and context the spy got.
 */
export async function parseWithSpy<O>(noun: string | null, build: VerbBuilder<O>, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ opts: O; ctx: Context; out: BufferOutput }> {
  const out = new BufferOutput({ env });
  let captured: { opts: O; ctx: Context } | undefined;
  const spy = async (opts: O, ctx: Context) => {
    captured = { opts, ctx };
  };
  const nounCommand = (f: Factory) => (noun ? new Command(noun).addCommand(build(f, spy)) : build(f, spy));
  const program = buildProgram(createFactory(out, env), [nounCommand]);
  await program.parseAsync(argv, { from: 'user' });
  if (!captured) throw new Error(`run() was not called for: ${argv.join(' ')}`);
  return { ...captured, out };
}

/** True when the text holds an ANSI escape sequence. */
export function hasAnsi(text: string): boolean {
  return /\u001b\[/.test(text);
}

/** A failed run: the exit code, nothing on stdout, one line on stderr (commander adds "(add --help for usage)"). */
export function assertFails(r: CliResult, code: number, message: RegExp): void {
  assert.equal(r.code, code, `exit code; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, message);
  const lines = r.stderr.trimEnd().split('\n');
  if (lines[1] === '(add --help for usage)') lines.pop();
  assert.equal(lines.length, 1, `one line on stderr: ${JSON.stringify(r.stderr)}`);
}

/** A --json run: exit 0, nothing on stderr, one JSON document on stdout. */
export function jsonOf(r: CliResult): any {
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout);
}
