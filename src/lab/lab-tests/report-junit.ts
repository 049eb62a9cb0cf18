// JUnit XML as GitLab, GitHub Actions (test-reporter actions) and Jenkins read it: one testsuite
// (the lab), one testcase per result. A failure is <failure>, a skipped test <skipped/>, a warning
// a passing testcase whose <system-out> says what went wrong.
import { hostname } from 'node:os';
import { resultLabel, type TestResult } from './model.js';

/** The run as a JUnit XML document. */
export function junitReport(lab: string, results: readonly TestResult[], startedAt: Date): string {
  const n = (s: TestResult['status']) => results.filter((r) => r.status === s).length;
  const total = results.reduce((sum, r) => sum + r.duration_ms, 0) / 1000;
  const timestamp = startedAt.toISOString().replace(/\.\d+Z$/, '');
  const cases = results.map((r) => {
    const open = `    <testcase name="${attr(resultLabel(r))}" classname="${attr(`lab.${lab}`)}" time="${(r.duration_ms / 1000).toFixed(3)}"`;
    const detail = [r.message, r.expected !== undefined ? `expected: ${r.expected}` : '', r.seen !== undefined ? `seen: ${r.seen}` : ''].filter(Boolean).join('\n');
    if (r.status === 'pass') return `${open}/>`;
    if (r.status === 'skip') return `${open}>\n      <skipped message="${attr(r.message ?? '')}"/>\n    </testcase>`;
    if (r.status === 'warn') return `${open}>\n      <system-out>${text(`warning: ${detail}`)}</system-out>\n    </testcase>`;
    return `${open}>\n      <failure message="${attr(r.message ?? 'failed')}" type="${r.expected !== undefined ? 'expectation' : 'error'}">${text(detail)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(`emuctl lab test ${lab}`)}" tests="${results.length}" failures="${n('fail')}" errors="0" skipped="${n('skip')}" time="${total.toFixed(3)}">`,
    `  <testsuite name="${attr(lab)}" tests="${results.length}" failures="${n('fail')}" errors="0" skipped="${n('skip')}" time="${total.toFixed(3)}" timestamp="${timestamp}" hostname="${attr(hostname())}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** XML 1.0 cannot hold most control characters, even escaped: they become U+FFFD. */
function clean(s: string): string {
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
}

function text(s: string): string {
  return clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
