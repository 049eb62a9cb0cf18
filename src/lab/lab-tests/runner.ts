// Runs a lab's tests in file order against the nodes a server has: each test waits, then tries
// until it passes or its retry time is up; a test on several nodes (or `ping: all`) runs once per
// node (or pair), all at once. Tests that need nodes the server does not have are skipped.
import type { ApiClient } from '../../client/api.js';
import type { Node } from '../../client/nodes.js';
import type { LabSpec } from '../model.js';
import type { LabTest, TestResult } from './model.js';
import { consoleAttempt, execAttempt, pingAttempt, type Attempt } from './probes.js';

/** What the runner needs: the server, the lab's nodes there, and the file (for addresses). */
export interface RunSetting {
  api: ApiClient;
  nodes: readonly Node[];
  spec: LabSpec;
  /** Told of each result as it comes (a reporter prints it). */
  onResult?: (result: TestResult) => void;
}

/** The shortest time one attempt may take before it is given up (a command, a console, a ping). */
const ATTEMPT_TIMEOUT_MS = 30_000;
/** Pause between two attempts of a test with retry:. */
const RETRY_PAUSE_MS = 1_000;

/** One run of a test: on a node, or a ping pair. */
interface Run {
  on?: string;
  node: string;
  /** The ping target's address. */
  address?: string;
  /** Nodes this run needs on the server. */
  needs: string[];
}

/** Runs the tests in order and returns every result (one per test, or per node / pair). */
export async function runLabTests(tests: readonly LabTest[], setting: RunSetting): Promise<TestResult[]> {
  const results: TestResult[] = [];
  const report = (r: TestResult) => {
    results.push(r);
    setting.onResult?.(r);
  };
  let stoppedBy: string | undefined;
  for (const test of tests) {
    if (stoppedBy) {
      report({ name: test.name, status: 'skip', duration_ms: 0, attempts: 0, message: `not run: test "${stoppedBy}" failed and has stop_on_error` });
      continue;
    }
    if (test.waitMs) await sleep(test.waitMs);
    const outcomes = await runTest(test, setting);
    for (const r of outcomes) report(r);
    if (test.stopOnError && outcomes.some((r) => r.status === 'fail')) stoppedBy = test.name;
  }
  return results;
}

async function runTest(test: LabTest, setting: RunSetting): Promise<TestResult[]> {
  const runs = runsOf(test, setting.spec);
  if (!runs.length) return [{ name: test.name, status: 'skip', duration_ms: 0, attempts: 0, message: 'no pair of hosts with ip: to ping' }];
  const present = new Map(setting.nodes.map((n) => [n.name, n]));
  return Promise.all(runs.map(async (run): Promise<TestResult> => {
    const base = { name: test.name, ...(run.on ? { on: run.on } : {}) };
    const absent = run.needs.filter((n) => !present.has(n));
    if (absent.length) return { ...base, status: 'skip', duration_ms: 0, attempts: 0, message: `needs ${absent.join(', ')}, not in the lab on the server` };
    const started = Date.now();
    const deadline = started + test.retryMs;
    let attempts = 0;
    let last: Attempt;
    for (;;) {
      attempts++;
      last = await attempt(test, run, present.get(run.node)!, setting.api, Math.max(ATTEMPT_TIMEOUT_MS, deadline - Date.now()));
      // The last try starts when the time is up, so a test with retry: 30s has been given its 30 s.
      if (last.ok || Date.now() >= deadline) break;
      await sleep(Math.min(RETRY_PAUSE_MS, deadline - Date.now()));
    }
    const duration_ms = Date.now() - started;
    if (last.ok) return { ...base, status: 'pass', duration_ms, attempts };
    const seen = last.mismatches?.at(-1)?.seen;
    return {
      ...base,
      status: test.level === 'warning' ? 'warn' : 'fail',
      duration_ms,
      attempts,
      message: last.message,
      ...(last.mismatches ? { expected: last.mismatches.map((m) => m.expected).join('; '), seen } : {}),
    };
  }));
}

function attempt(test: LabTest, run: Run, node: Node, api: ApiClient, timeoutMs: number): Promise<Attempt> {
  switch (test.probe.kind) {
    case 'exec':
      return execAttempt(api, node, test.probe.command, test.expect, timeoutMs);
    case 'console':
      return consoleAttempt(api, node, test.probe.send, test.expect, timeoutMs);
    default:
      return pingAttempt(api, node, run.address!, timeoutMs);
  }
}

/** The runs of a test: one per node; for `ping: all`, one per pair of hosts (each pair once, from the first in file order). */
function runsOf(test: LabTest, spec: LabSpec): Run[] {
  const address = (name: string) => spec.nodes.find((n) => n.name === name)?.ip?.split('/')[0];
  const probe = test.probe;
  if (probe.kind === 'ping-all') {
    const hosts = spec.nodes.filter((n) => n.ip).map((n) => n.name);
    return hosts.flatMap((a, i) => hosts.slice(i + 1).map((b) => ({ on: `${a}→${b}`, node: a, address: address(b), needs: [a, b] })));
  }
  const several = test.nodes.length > 1;
  return test.nodes.map((node) => {
    if (probe.kind !== 'ping') return { node, needs: [node], ...(several ? { on: node } : {}) };
    const isNode = !/^(\d{1,3}\.){3}\d{1,3}$/.test(probe.target);
    return { node, address: isNode ? address(probe.target) : probe.target, needs: isNode ? [node, probe.target] : [node], ...(several ? { on: node } : {}) };
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The exit code of a run: 1 when any test failed (warnings and skips do not), else 0. */
export function runExitCode(results: readonly TestResult[]): 0 | 1 {
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
