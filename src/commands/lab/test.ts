import { writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { NoMatchError, SilentExit, UsageError } from '../../cli/errors.js';
import type { LabTest } from '../../lab/lab-tests/model.js';
import type { LabSpec } from '../../lab/model.js';
import { readLabFile } from './shared.js';

/** How a test run is reported (shared by `lab test` and `lab up --test`). */
export interface TestReportOptions {
  /** Only the tests of these names. */
  only: string[];
  /** Write JUnit XML here. */
  junit?: string;
  /** Print TAP instead of the text lines. */
  tap: boolean;
}

/** Options of `lab test`. */
export interface LabTestOptions extends TestReportOptions {
  file: string;
}

/** Adds --only, --junit and --tap to `lab test` and `lab up`. */
export function withTestReportOptions(cmd: Command): Command {
  return cmd
    .option('--only <names...>', 'run only the tests of these names')
    .option('--junit <file>', 'write a JUnit XML report to this file (GitLab, GitHub Actions, Jenkins)')
    .option('--tap', 'print the results as TAP');
}

/** The report options given on the command line. */
export function testReportOptions(flags: { only?: string[]; junit?: string; tap?: boolean }): TestReportOptions {
  return { only: flags.only ?? [], junit: flags.junit, tap: flags.tap === true };
}

/** `emuctl lab test FILE [--only NAME…] [--junit FILE] [--tap] [--json]`. */
export function labTestCommand(f: Factory, run = runLabTest): Command {
  return withTestReportOptions(new Command('test')
    .description("run the tests: of a lab file against its lab; exit 0 when all pass, 1 when any fails, 2 when the file is bad")
    .argument('<file>', 'lab file (YAML) with tests:'))
    .action(async (file: string, flags: { only?: string[]; junit?: string; tap?: boolean }, cmd: Command) =>
      run({ file, ...testReportOptions(flags) }, await f.context(cmd)));
}

/** Reads the file (a mistake in it or in --only is exit 2, before the server is asked), then runs and reports its tests. */
export async function runLabTest(opts: LabTestOptions, ctx: Context): Promise<void> {
  const spec = await readLabFile(opts.file, ctx.env);
  await runAndReport(spec, opts, ctx);
}

/** The tests to run (all, or those --only names); a usage error when there are none or a name is unknown, or --tap meets --json. */
export function selectTests(spec: LabSpec, opts: TestReportOptions, json: boolean): LabTest[] {
  if (opts.tap && json) throw new UsageError('give --tap or --json, not both');
  const unknown = opts.only.filter((name) => !spec.tests.some((t) => t.name === name));
  if (unknown.length) throw new UsageError(`--only: no test named ${unknown.map((n) => JSON.stringify(n)).join(', ')} in ${spec.file}; tests: ${spec.tests.map((t) => t.name).join(', ') || 'none'}`);
  const tests = opts.only.length ? spec.tests.filter((t) => opts.only.includes(t.name)) : spec.tests;
  if (!tests.length) throw new UsageError(`${spec.file} has no tests: to run`);
  return tests;
}

/** Runs the lab's tests on the server and reports them (text, TAP or JSON; JUnit to a file); exit 1 when any failed. */
export async function runAndReport(spec: LabSpec, opts: TestReportOptions, ctx: Context): Promise<void> {
  const tests = selectTests(spec, opts, ctx.out.json);
  const api = await ctx.api();
  const { readLabState } = await import('../../lab/state.js');
  const state = await readLabState(api, spec.name);
  if (!state.project) throw new NoMatchError(`no lab ${spec.name} on ${api.url} (no project of that name): run emuctl lab up ${spec.file} first`);
  const { runLabTests, runExitCode } = await import('../../lab/lab-tests/runner.js');
  const { textLine, textSummary } = await import('../../lab/lab-tests/report-text.js');
  const s = ctx.out.style;
  const paint = (status: string, t: string) => (status === 'pass' ? s.green(t) : status === 'fail' ? s.red(t) : status === 'warn' ? s.yellow(t) : s.dim(t));
  const text = !ctx.out.json && !opts.tap;
  const startedAt = new Date();
  const results = await runLabTests(tests, { api, nodes: state.nodes, spec, onResult: text ? (r) => ctx.out.writeOut(textLine(r, paint)) : undefined });
  if (opts.junit !== undefined) {
    const { junitReport } = await import('../../lab/lab-tests/report-junit.js');
    await writeFile(opts.junit, junitReport(spec.name, results, startedAt));
  }
  if (opts.tap) ctx.out.writeOut((await import('../../lab/lab-tests/report-tap.js')).tapReport(results));
  const code = runExitCode(results);
  ctx.out.result({ lab: spec.name, project_id: state.project.project_id, passed: code === 0, results });
  if (text) ctx.out.writeOut(`${textSummary(results)}${opts.junit !== undefined ? `; JUnit report in ${opts.junit}` : ''}\n`);
  if (code !== 0) throw new SilentExit(code);
}
