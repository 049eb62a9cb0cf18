// Tests written in a lab file (`tests:`), as the runner sees them: what to run, what to expect of
// its output, and how to time it. Reporters read TestResult only.
import type { Pos } from '../file-position.js';

/** What a test runs: a command through the exec route, a ping, or a line sent to a console. */
export type Probe =
  | { kind: 'exec'; command: string }
  | { kind: 'ping'; target: string }
  | { kind: 'ping-all' }
  | { kind: 'console'; send: string };

/** `json: {path, equals}` or `json: {path, min, max}` (min/max compare a number or count a list's entries or an object's keys). */
export interface JsonExpectation {
  path: string;
  equals?: unknown;
  min?: number;
  max?: number;
}

/** Every expectation a test states on its output; all are required. */
export interface Expectations {
  exit?: number;
  contains: string[];
  notContains: string[];
  regex?: RegExp;
  json?: JsonExpectation;
}

/** One test of the file. */
export interface LabTest {
  name: string;
  pos: Pos;
  probe: Probe;
  /** The nodes it runs on (one for a plain test, several with `nodes:`, none for `ping: all`). */
  nodes: string[];
  expect: Expectations;
  /** Keep trying until it passes or this many ms have passed (0: one try). */
  retryMs: number;
  /** Pause this long before the test. */
  waitMs: number;
  level: 'error' | 'warning';
  stopOnError: boolean;
}

export type TestStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** How one test (on one node, or one ping pair) ended. */
export interface TestResult {
  name: string;
  /** The node it ran on, or the ping pair `A→B`, when the test ran more than once. */
  on?: string;
  status: TestStatus;
  duration_ms: number;
  attempts: number;
  /** Why it failed, warned or was skipped. */
  message?: string;
  /** What was expected and what was seen (failures). */
  expected?: string;
  seen?: string;
}

/** A test's display name: `name` or `name [R1]`. */
export function resultLabel(r: Pick<TestResult, 'name' | 'on'>): string {
  return r.on ? `${r.name} [${r.on}]` : r.name;
}
