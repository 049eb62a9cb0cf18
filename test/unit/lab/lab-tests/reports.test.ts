// The reports of a test run: JUnit XML that validates against the JUnit schema CI systems use
// (test/fixtures/junit.xsd, checked with xmllint), TAP and the text lines.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestResult } from '../../../../src/lab/lab-tests/model.js';
import { junitReport } from '../../../../src/lab/lab-tests/report-junit.js';
import { tapReport } from '../../../../src/lab/lab-tests/report-tap.js';
import { textLine, textSummary } from '../../../../src/lab/lab-tests/report-text.js';

const XSD = fileURLToPath(new URL('../../../../../test/fixtures/junit.xsd', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'emuctl-junit-'));

/** xmllint's verdict on the document against the JUnit schema (a missing xmllint fails the test). */
async function validate(xml: string): Promise<{ ok: boolean; errors: string }> {
  const file = join(dir, `r${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(file, xml);
  try {
    await promisify(execFile)('xmllint', ['--noout', '--schema', XSD, file]);
    return { ok: true, errors: '' };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('xmllint is missing: install libxml2-utils (scripts/setup.sh)');
    return { ok: false, errors: e.stderr ?? String(err) };
  }
}

const RESULTS: TestResult[] = [
  { name: 'R1 has two Full neighbours', status: 'pass', duration_ms: 1234, attempts: 1 },
  { name: 'R2 <route> & "H1"', status: 'fail', duration_ms: 30_000, attempts: 28, message: 'expected output contains "198.18.101.0/24"',
    expected: 'output contains "198.18.101.0/24"', seen: 'Codes: K - kernel\n\u0001O>* 198.18.23.0/24 <bad> & more\nl3\nl4\nl5\nl6\nl7\nl8' },
  { name: 'no default route', status: 'warn', duration_ms: 10, attempts: 1, message: 'expected output does not contain "0.0.0.0/0"', expected: 'output does not contain "0.0.0.0/0"', seen: '0.0.0.0/0 via x' },
  { name: 'H1 pings H2', on: 'H1→H2', status: 'skip', duration_ms: 0, attempts: 0, message: 'needs H2, not in the lab on the server' },
  { name: 'pings # 2', status: 'fail', duration_ms: 5, attempts: 1, message: 'H1 cannot ping 198.18.102.10: 100% packet loss' },
];

describe('lab test reports', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the JUnit report validates against the JUnit schema and counts what happened', async () => {
    const xml = junitReport('ospf-triangle', RESULTS, new Date('2026-12-07T12:00:00.123Z'));
    const verdict = await validate(xml);
    assert.ok(verdict.ok, verdict.errors);
    assert.match(xml, /<testsuite name="ospf-triangle" tests="5" failures="2" errors="0" skipped="1" time="31\.249" timestamp="2026-12-07T12:00:00"/);
    assert.match(xml, /<testcase name="R2 &lt;route&gt; &amp; &quot;H1&quot;" classname="lab.ospf-triangle" time="30.000">\n {6}<failure message="expected output contains &quot;198.18.101.0\/24&quot;" type="expectation">/);
    assert.match(xml, /<testcase name="H1 pings H2 \[H1→H2\]"[^>]*>\n {6}<skipped message="needs H2/);
    assert.match(xml, /<system-out>warning: expected output does not contain/);
    assert.ok(!xml.includes('\u0001'), 'control characters cannot be in XML 1.0');
    assert.equal(xml.match(/<testcase /g)?.length, 5);
  });

  it('the schema check can fail: a document outside the format is refused', async () => {
    const bad = junitReport('l', RESULTS, new Date()).replace('<failure ', '<failed ').replace('</failure>', '</failed>');
    const verdict = await validate(bad);
    assert.equal(verdict.ok, false);
    assert.match(verdict.errors, /failed.*not expected/);
    assert.equal((await validate(junitReport('l', RESULTS, new Date()).replace(/(<testsuite name="l") tests="5"/, '$1'))).ok, false, 'testsuite needs tests=');
  });

  it('TAP: a failure is not ok with its YAML block, a warning a TODO, a skip a SKIP', () => {
    const tap = tapReport(RESULTS);
    const lines = tap.split('\n');
    assert.deepEqual(lines.slice(0, 3), ['TAP version 13', '1..5', 'ok 1 - R1 has two Full neighbours']);
    assert.ok(lines.includes('not ok 2 - R2 <route> & "H1"'));
    assert.ok(lines.includes('not ok 3 - no default route # TODO warning-level test'));
    assert.ok(lines.includes('ok 4 - H1 pings H2 [H1→H2] # SKIP needs H2, not in the lab on the server'));
    assert.ok(lines.includes('not ok 5 - pings \\# 2'));
    assert.ok(lines.includes('  expected: "output contains \\"198.18.101.0/24\\""'));
  });

  it('text: one line per test, expected against seen cut to a few lines, and a summary', () => {
    assert.equal(textLine(RESULTS[0]), 'PASS  R1 has two Full neighbours  (1.2 s)\n');
    const fail = textLine(RESULTS[1]).split('\n');
    assert.equal(fail[0], 'FAIL  R2 <route> & "H1"  (30.0 s, 28 tries)');
    assert.equal(fail[1], '      expected: output contains "198.18.101.0/24"');
    assert.equal(fail[2], '      seen:     Codes: K - kernel');
    assert.equal(fail.at(-2), '                … 2 more lines');
    assert.equal(textLine(RESULTS[4]), 'FAIL  pings # 2  (0.0 s)\n      H1 cannot ping 198.18.102.10: 100% packet loss\n');
    assert.equal(textSummary(RESULTS), '1 passed, 2 failed, 1 warning, 1 skipped');
  });
});
