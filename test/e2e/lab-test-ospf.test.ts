// `emuctl lab test` on examples/ospf-triangle.yml, a generated lab (real FRR routers and busybox
// hosts on the local Docker engine, their addresses and frr.conf written by emuctl): every test passes once the lab is up; with the R1-R2 link suspended exactly the
// neighbour test fails while the route and ping tests pass within their retry window; with R3
// stopped too, H1 → H2 fails with its reason. JUnit reports validate against the JUnit schema.
// The broken-lab runs use a copy of the example that differs only in two retry: values (asserted
// line by line), so the test still waits out a failing test's whole window, a shorter one.
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
import { testImage } from '../helpers/docker-images.js';
import { eventually } from '../helpers/retry.js';

const run = promisify(execFile);
// Ranges no other test file uses (5 docker nodes: a console and an aux port each).
const ENV = { EMUCTL_UDP_PORT_RANGE: '26430-26499', EMUCTL_CONSOLE_PORT_RANGE: '26500-26529' };
const LAB = fileURLToPath(new URL('../../../examples/ospf-triangle.yml', import.meta.url));
const XSD = fileURLToPath(new URL('../../../test/fixtures/junit.xsd', import.meta.url));
const NEIGHBOURS = 'R1 has two Full neighbours';
const ROUTE = "R2 has a route to H1's subnet";
const PING = 'H1 pings H2';
const NO_ROUTE = 'no route to 198.18.200.0/24 (nobody announces it)';
// The windows the failing runs wait out, in the copy (the example has 60 s and 30 s).
const NEIGHBOURS_RETRY_S = 15;
const PING_RETRY_S = 10;

/** The example with only the neighbour and ping tests' retry: shortened; throws if the example's lines moved. */
function shortWindows(example: string): string {
  const swap = (text: string, from: string, to: string) => {
    assert.equal(text.split(from).length, 2, `one ${JSON.stringify(from)} in the example`);
    return text.replace(from, to);
  };
  let copy = swap(example, `  - name: ${NEIGHBOURS}\n    exec: {node: R1, command: "vtysh -c 'show ip ospf neighbor'"}\n    regex: 'Full/[\\s\\S]*Full/'\n    retry: 60s\n`,
    `  - name: ${NEIGHBOURS}\n    exec: {node: R1, command: "vtysh -c 'show ip ospf neighbor'"}\n    regex: 'Full/[\\s\\S]*Full/'\n    retry: ${NEIGHBOURS_RETRY_S}s\n`);
  copy = swap(copy, `  - name: ${PING}\n    ping: H1:H2\n    retry: 30s\n`, `  - name: ${PING}\n    ping: H1:H2\n    retry: ${PING_RETRY_S}s\n`);
  return copy;
}

describe('lab test on examples/ospf-triangle.yml', () => {
  let d: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let pid: string;
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-test-ospf-'));
  const short = join(dir, 'ospf-triangle.yml');
  const containers: string[] = [];
  const cli = (...argv: string[]) => runInProcess(argv, env);
  const ok = async (...argv: string[]) => {
    const r = await cli(...argv);
    assert.equal(r.code, 0, `emuctl ${argv.join(' ')}: ${r.stderr}${r.stdout}`);
    return r;
  };
  const statuses = (report: any) => Object.fromEntries(report.results.map((r: any) => [r.name, r.status]));

  before(async () => {
    // The image script takes seconds: it runs while the daemon starts (awaited below, its failure too).
    const images = Promise.all([testImage('frr'), testImage('host')]);
    images.catch(() => undefined);
    writeFileSync(short, shortWindows(readFileSync(LAB, 'utf8')));
    d = await startTestDaemon({ env: ENV });
    const [frr, host] = await images;
    home = tempHome();
    // Starting five containers on a loaded machine can take longer than the CLI's default 10 s request timeout.
    env = cliEnv(home, { EMUCTL_URL: d.url, FRR_IMAGE: frr, HOST_IMAGE: host, EMUCTL_TIMEOUT: '120' });
  });
  after(async () => {
    if (d) {
      await cli('lab', 'down', LAB).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    for (const id of containers) await run('docker', ['rm', '-f', '-v', id]).catch(() => undefined);
    if (home) removeTempHome(home);
    removeTempHome(dir);
  });

  it('lab up --test: every test passes (the warning-level one too), and the JUnit report validates', async () => {
    const junit = join(dir, 'up.xml');
    const r = await cli('lab', 'up', LAB, '--test', '--junit', junit);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    pid = ((await d.api('GET', '/v2/projects')).body as any[]).find((p) => p.name === 'ospf-triangle').project_id;
    for (const n of (await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]) {
      containers.push((await d.api('GET', `/v2/compute/projects/${pid}/docker/nodes/${n.node_id}`)).body.container_id);
    }
    for (const name of [NEIGHBOURS, ROUTE, PING, NO_ROUTE]) assert.match(r.stdout, new RegExp(`^PASS  ${name.replace(/[()]/g, '\\$&')}  \\(`, 'm'), r.stdout);
    assert.match(r.stdout, /^4 passed, 0 failed, 0 warnings, 0 skipped; JUnit report in /m);
    await run('xmllint', ['--noout', '--schema', XSD, junit]);
    assert.match(readFileSync(junit, 'utf8'), /<testsuite name="ospf-triangle" tests="4" failures="0" errors="0" skipped="0"/);
  });

  it('the copy with short windows is the example byte for byte but for two retry: lines', () => {
    const a = readFileSync(LAB, 'utf8').split('\n');
    const b = readFileSync(short, 'utf8').split('\n');
    assert.equal(b.length, a.length);
    const changed = a.flatMap((line, i) => (line === b[i] ? [] : [[line, b[i]]]));
    assert.deepEqual(changed, [['    retry: 60s', `    retry: ${NEIGHBOURS_RETRY_S}s`], ['    retry: 30s', `    retry: ${PING_RETRY_S}s`]]);
  });

  it('R1-R2 suspended: only the neighbour test fails; the route and the ping survive through R3', async () => {
    const nodes = new Map(((await d.api('GET', `/v2/projects/${pid}/nodes`)).body as any[]).map((n) => [n.name, n.node_id]));
    const r1r2 = ((await d.api('GET', `/v2/projects/${pid}/links`)).body as any[])
      .find((l) => ['R1', 'R2'].every((name) => l.nodes.some((e: any) => e.node_id === nodes.get(name) && e.adapter_number === 0)));
    await ok('link', 'suspend', r1r2.link_id, '-p', 'ospf-triangle');
    // Dead after 4 s: wait until R1 has dropped R2, so the run sees the broken lab, not the moment before.
    await eventually('R1 to lose R2', 60_000, async () => {
      const r = await ok('node', 'exec', 'R1', '-p', 'ospf-triangle', '--', 'vtysh', '-c', 'show ip ospf neighbor');
      assert.doesNotMatch(r.stdout, /198\.18\.0\.2 /); // R2's router id: its generated loopback
    });
    const junit = join(dir, 'suspended.xml');
    const r = await cli('--json', 'lab', 'test', short, '--junit', junit);
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(statuses(report), { [NEIGHBOURS]: 'fail', [ROUTE]: 'pass', [PING]: 'pass', [NO_ROUTE]: 'pass' });
    const failed = report.results.find((x: any) => x.name === NEIGHBOURS);
    assert.equal(failed.expected, 'output matches /Full\\/[\\s\\S]*Full\\//');
    assert.match(failed.seen, /198\.18\.0\.3 .*Full\//);
    assert.ok(failed.duration_ms >= NEIGHBOURS_RETRY_S * 1000 && failed.attempts > 1, `retried for its ${NEIGHBOURS_RETRY_S} s: ${failed.duration_ms} ms, ${failed.attempts} tries`);
    await run('xmllint', ['--noout', '--schema', XSD, junit]);
    assert.match(readFileSync(junit, 'utf8'), /<testcase name="R1 has two Full neighbours" classname="lab.ospf-triangle" time="[\d.]+">\n {6}<failure message="expected output matches/);
  });

  it('R3 stopped as well: H1 → H2 fails with the reason', async () => {
    await ok('node', 'stop', 'R3', '-p', 'ospf-triangle');
    const r = await cli('lab', 'test', short, '--tap', '--only', PING);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^TAP version 13\n1\.\.1\nnot ok 1 - H1 pings H2\n  ---\n  message: "H1 cannot ping 198\.19\.1\.2: [^"]*100% packet loss"\n/);
    assert.ok(Number(/duration_ms: (\d+)/.exec(r.stdout)![1]) >= PING_RETRY_S * 1000, `tried for its retry: ${PING_RETRY_S}s`);
  });
});
