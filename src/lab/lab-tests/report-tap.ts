// TAP version 13 (testanything.org): a warning is a failing TODO test, which TAP consumers do not
// count as a failure; a skipped test is `ok … # SKIP`.
import { resultLabel, type TestResult } from './model.js';

/** The whole run as TAP. */
export function tapReport(results: readonly TestResult[]): string {
  const lines = ['TAP version 13', `1..${results.length}`];
  results.forEach((r, i) => {
    const name = resultLabel(r).replace(/#/g, '\\#');
    const n = i + 1;
    if (r.status === 'pass') lines.push(`ok ${n} - ${name}`);
    else if (r.status === 'skip') lines.push(`ok ${n} - ${name} # SKIP ${oneLine(r.message ?? '')}`);
    else lines.push(`not ok ${n} - ${name}${r.status === 'warn' ? ' # TODO warning-level test' : ''}`);
    if (r.status === 'fail' || r.status === 'warn') {
      lines.push('  ---', `  message: ${JSON.stringify(r.message ?? '')}`);
      if (r.expected !== undefined) lines.push(`  expected: ${JSON.stringify(r.expected)}`, `  seen: ${JSON.stringify(r.seen ?? '')}`);
      lines.push(`  duration_ms: ${r.duration_ms}`, '  ...');
    }
  });
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
