// The human report of a test run: one line per test (status, name, time), and under a failure
// what was expected against what was seen, cut to a few lines.
import { resultLabel, type TestResult } from './model.js';

/** Lines of output kept under a failure. */
const SEEN_LINES = 6;
const LINE_WIDTH = 160;

const MARK = { pass: 'PASS', fail: 'FAIL', warn: 'WARN', skip: 'SKIP' } as const;

/** Colours a mark; the caller knows whether colour is on. */
export type Paint = (status: TestResult['status'], text: string) => string;

/** `PASS  R1 has two Full neighbours  (1.2 s)` and, for a failure or warning, its expected/seen lines. */
export function textLine(r: TestResult, paint: Paint = (_, t) => t): string {
  const head = `${paint(r.status, MARK[r.status])}  ${resultLabel(r)}  (${(r.duration_ms / 1000).toFixed(1)} s${r.attempts > 1 ? `, ${r.attempts} tries` : ''})`;
  const lines = [head];
  if (r.status === 'skip' && r.message) lines.push(`      ${r.message}`);
  if (r.status === 'fail' || r.status === 'warn') {
    if (r.expected !== undefined) {
      lines.push(`      expected: ${cut(r.expected)}`);
      const seen = (r.seen ?? '').split('\n');
      lines.push(`      seen:     ${cut(seen[0] ?? '')}`);
      for (const l of seen.slice(1, SEEN_LINES)) lines.push(`                ${cut(l)}`);
      if (seen.length > SEEN_LINES) lines.push(`                … ${seen.length - SEEN_LINES} more lines`);
    } else if (r.message) {
      lines.push(`      ${cut(r.message)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `4 passed, 1 failed, 1 warning, 0 skipped`. */
export function textSummary(results: readonly TestResult[]): string {
  const n = (s: TestResult['status']) => results.filter((r) => r.status === s).length;
  return `${n('pass')} passed, ${n('fail')} failed, ${n('warn')} warning${n('warn') === 1 ? '' : 's'}, ${n('skip')} skipped`;
}

function cut(line: string): string {
  return line.length > LINE_WIDTH ? `${line.slice(0, LINE_WIDTH - 1)}…` : line;
}
