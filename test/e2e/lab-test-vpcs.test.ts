// `emuctl lab test` on a VPCS-only lab (real daemon, real VPCS): console: tests, ping tests and
// ping: all, expectations, a warning-level test, JUnit/TAP/JSON reports, a broken link making
// exactly the tests that need it fail, `lab up --nodes` skipping tests that need absent nodes,
// and bad files refused (exit 2, FILE:LINE:COL) before the lab is touched.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cliEnv, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

// Ranges no other test file uses.
const ENV = { EMUCTL_UDP_PORT_RANGE: '26300-26399', EMUCTL_CONSOLE_PORT_RANGE: '26400-26429' };
const XSD = fileURLToPath(new URL('../../../test/fixtures/junit.xsd', import.meta.url));

const LAB = `name: lab-test-vpcs
nodes:
  SW1: {type: ethernet_switch}
  PC1: {type: vpcs, ip: 198.18.0.1/24}
  PC2: {type: vpcs, ip: 198.18.0.2/24}
  PC3: {type: vpcs, ip: 198.18.0.3/24}
links:
  - [PC1:e0, SW1:e0]
  - [PC2:e0, SW1:e1]
  - [PC3:e0, SW1:e2]
tests:
  - name: PC1 reaches PC2 on its console
    console: {node: PC1, send: ping 198.18.0.2 -c 2, expect: ttl=}
    exit: 0
    retry: 60s
  - name: PC1 shows its address
    console: {node: PC1, send: show ip}
    contains: 198.18.0.1/24
    regex: 'IP/MASK\\s*:\\s*198\\.18\\.0\\.1/24'
    not_contains: 198.18.0.2/24
  - name: everyone pings everyone
    ping: all
    retry: 60s
  - name: nobody at .9
    console: {node: PC2, send: ping 198.18.0.9 -c 1 -w 500, expect: ttl=}
    level: warning
  - name: PC3 from both
    nodes: [PC1, PC2]
    ping: PC3
`;

describe('lab test on a VPCS lab, through console: and ping:', () => {
  let d: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-test-'));
  const lab = join(dir, 'lab.yml');
  const run = (...argv: string[]) => runInProcess(argv, env);
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const projects = async () => ((await d.api('GET', '/v2/projects')).body as any[]).map((p) => p.name).sort();
  const xmllint = async (path: string) => promisify(execFile)('xmllint', ['--noout', '--schema', XSD, path]);

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: d.url });
    writeFileSync(lab, LAB);
  });
  after(async () => {
    await run('lab', 'down', lab);
    await d.stop();
    removeHome(d.home);
    removeTempHome(home);
    removeTempHome(dir);
  });

  it('bad files are refused with FILE:LINE:COL and exit 2 before the lab is touched', async () => {
    const bad: [string, string, RegExp][] = [
      ['    retry: 60s\n  - name: PC1 shows', '    retries: 60s\n  - name: PC1 shows', /bad1\.yml:15:5: unknown key "retries" in tests\.0/],
      ['nodes: [PC1, PC2]', 'nodes: [PC1, PC9]', /bad2\.yml:28:18: test "PC3 from both" names node "PC9", which the lab does not have/],
      ["regex: 'IP/MASK", "regex: '(IP/MASK", /bad3\.yml:19:12: bad regex/],
      ['retry: 60s\n  - name: nobody', 'retry: a minute\n  - name: nobody', /bad4\.yml:23:12: bad duration "a minute" for retry/],
    ];
    const before = await projects();
    for (const [i, [from, to, message]] of bad.entries()) {
      assert.ok(LAB.includes(from), from);
      const path = file(`bad${i + 1}.yml`, LAB.replace(from, to).replace('name: lab-test-vpcs', `name: bad-${i + 1}`));
      for (const argv of [['lab', 'test', path], ['lab', 'up', path, '--test']]) {
        const r = await run(...argv);
        assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      }
    }
    assert.deepEqual(await projects(), before, 'no project was made or changed');
    const unknown = await run('lab', 'test', lab, '--only', 'no such test');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--only: no test named "no such test"/);
  });

  it('lab up --test brings the lab up and runs every test: all pass, the warning warns, the JUnit report validates', async () => {
    const junit = join(dir, 'up.xml');
    const r = await run('lab', 'up', lab, '--test', '--junit', junit);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const lines = r.stdout.split('\n');
    for (const name of ['PC1 reaches PC2 on its console', 'PC1 shows its address', 'everyone pings everyone [PC1→PC2]', 'everyone pings everyone [PC1→PC3]',
      'everyone pings everyone [PC2→PC3]', 'PC3 from both [PC1]', 'PC3 from both [PC2]']) {
      assert.ok(lines.some((l) => l.startsWith(`PASS  ${name}  (`)), `${name} passes:\n${r.stdout}`);
    }
    assert.ok(lines.some((l) => l.startsWith('WARN  nobody at .9  (')), r.stdout);
    assert.match(r.stdout, /expected: output contains "ttl="/);
    assert.match(r.stdout, /7 passed, 0 failed, 1 warning, 0 skipped; JUnit report in /);
    await xmllint(junit);
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuite name="lab-test-vpcs" tests="8" failures="0" errors="0" skipped="0"/);
  });

  it('a suspended link fails exactly the tests that cross it, with the reason; exit 1; --json and --tap say the same', async () => {
    const pid = ((await d.api('GET', '/v2/projects')).body as any[]).find((p) => p.name === 'lab-test-vpcs').project_id;
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[];
    const pc3 = nodes.find((n) => n.name === 'PC3').node_id;
    const link = ((await d.api('GET', `/v2/projects/${pid}/links`)).body as any[]).find((l) => l.nodes.some((e: any) => e.node_id === pc3));
    assert.equal((await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { suspend: true })).status, 201);
    try {
      const r = await run('--json', 'lab', 'test', lab, '--only', 'PC3 from both', 'PC1 shows its address');
      assert.equal(r.code, 1, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.passed, false);
      assert.deepEqual(report.results.map((x: any) => [x.name, x.on ?? null, x.status]),
        [['PC1 shows its address', null, 'pass'], ['PC3 from both', 'PC1', 'fail'], ['PC3 from both', 'PC2', 'fail']]);
      assert.match(report.results[1].message, /^PC1 cannot ping 198\.18\.0\.3: /);

      const tap = await run('lab', 'test', lab, '--tap', '--only', 'PC3 from both', 'PC1 reaches PC2 on its console');
      assert.equal(tap.code, 1);
      assert.match(tap.stdout, /^TAP version 13\n1\.\.3\nok 1 - PC1 reaches PC2 on its console\nnot ok 2 - PC3 from both \[PC1\]\n  ---\n  message: "PC1 cannot ping 198\.18\.0\.3: /);
    } finally {
      await d.api('PUT', `/v2/projects/${pid}/links/${link.link_id}`, { suspend: false });
    }
  });

  it('stop_on_error ends the run at its failure (the rest reported as skipped); exec on a VPCS fails with the server\'s reason', async () => {
    const flow = file('flow.yml', LAB.replace(/^tests:[\s\S]*$/m, `tests:
  - name: exec is for containers
    exec: {node: PC1, command: show ip}
  - name: wrong address
    console: {node: PC2, send: show ip}
    contains: 198.18.0.99/24
    stop_on_error: true
  - name: never run
    ping: PC1:PC2
`));
    const r = await run('--json', 'lab', 'test', flow);
    assert.equal(r.code, 1, r.stderr);
    const results = JSON.parse(r.stdout).results;
    assert.deepEqual(results.map((x: any) => [x.name, x.status]), [['exec is for containers', 'fail'], ['wrong address', 'fail'], ['never run', 'skip']]);
    assert.match(results[0].message, /^exec on PC1: /);
    assert.equal(results[1].expected, 'output contains "198.18.0.99/24"');
    assert.match(results[1].seen, /198\.18\.0\.2\/24/);
    assert.equal(results[2].message, 'not run: test "wrong address" failed and has stop_on_error');
  });

  it('lab up --nodes leaves out PC3 in one line; lab test skips the tests that need it', async () => {
    const junit = join(dir, 'subset.xml');
    const r = await run('lab', 'up', lab, '--nodes', 'SW1,PC1,PC2', '--test', '--junit', junit, '--only', 'everyone pings everyone', 'PC3 from both');
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /^--nodes: leaving out PC3 and 1 link$/m);
    assert.match(r.stdout, /^PASS  everyone pings everyone \[PC1→PC2\]/m);
    assert.match(r.stdout, /^SKIP  everyone pings everyone \[PC1→PC3\]  \(0\.0 s\)\n {6}needs PC3, not in the lab on the server$/m);
    assert.match(r.stdout, /^SKIP  PC3 from both \[PC2\]/m);
    assert.match(r.stdout, /1 passed, 0 failed, 0 warnings, 4 skipped/);
    await xmllint(junit);
    assert.equal((await run('lab', 'up', lab, '--nodes', 'PC1,PC7')).code, 2);
  });
});
