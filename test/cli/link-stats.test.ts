// `emuctl link stats` against a real daemon: hubs linked in a row, real UDP frames sent into the
// first one, and two started VPCS pinging through a switch; the counters read through the CLI
// (table, --json, one link), --watch through the binary (piped: one block per period, Ctrl-C
// ends it with 0), and against a GNS3-like server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { TestDaemon } from '../helpers/daemon.js';
import { ethernetFrame, sleep, udpEndpoint, type UdpEndpoint } from '../helpers/udp.js';
import { assertFails, cliEnv, EMUCTL_BIN, jsonOf, removeTempHome, runInProcess, startCliDaemon, stopCliDaemon, tempHome } from './helpers/cli.js';
import { runCli } from '../../src/cli/run.js';
import { BufferOutput } from '../../src/render/buffer-output.js';
import { FAKE_GNS3_VERSION, startFakeGns3, type FakeGns3 } from './helpers/fake-gns3.js';

const PORT_RANGES = { EMUCTL_UDP_PORT_RANGE: '24500-24529', EMUCTL_CONSOLE_PORT_RANGE: '28440-28449' };
const TIMEOUT = { timeout: 120_000 };
/** What redraws the terminal: cursor home, clear the screen. */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';
const FRAME = ethernetFrame('ff:ff:ff:ff:ff:ff', '02:00:00:00:52:01');

/** What a run of the binary printed until it ended, and how it ended. */
interface Watched {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Spawns `emuctl argv…` with stdout piped, waits until its stdout satisfies `enough` (within
 * `withinMs`), then sends it SIGINT (what Ctrl-C sends) and waits for it to end.
 */
function watchUntil(argv: string[], env: NodeJS.ProcessEnv, enough: (stdout: string) => boolean, withinMs = 60_000): Promise<Watched & { reached: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EMUCTL_BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let reached = false;
    const stopAfter = setTimeout(() => child.kill('SIGINT'), withinMs);
    const killAfter = setTimeout(() => child.kill('SIGKILL'), withinMs + 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!reached && enough(stdout)) {
        reached = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(stopAfter);
      clearTimeout(killAfter);
      resolve({ code, signal, stdout, stderr, reached });
    });
  });
}

/** The rows of a table as cells (split at runs of two spaces or more), header first. */
const cellsOf = (table: string) => table.trimEnd().split('\n').map((line) => line.split(/ {2,}/));

describe('link stats against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  let source: UdpEndpoint;
  /** The UDP port of H1's port 7, where the test's frames go in. */
  let inlet: number;
  const ids: Record<string, string> = {};
  const run = (...argv: string[]) => runInProcess(argv, env);
  const traffic = async () => new Map<string, any>(((await daemon.api('GET', `/v2/projects/${projectId}/traffic`)).body as any[]).map((t) => [t.link_id, t]));
  const send = async (n: number) => {
    for (let i = 0; i < n; i++) await source.send(FRAME, inlet);
  };
  /** Waits until every link's frames grew by `n` over `start` in the daemon's own answer. */
  const untilGrown = async (start: Map<string, any>, n: number) => {
    const frames = (t: any) => (t ? t.framesIn + t.framesOut : 0);
    for (let waited = 0; waited < 20_000; waited += 200) {
      const now = await traffic();
      if (Object.values(ids).every((id) => frames(now.get(id)) - frames(start.get(id)) >= n)) return;
      await sleep(200);
    }
    assert.fail(`the links did not carry ${n} more frames`);
  };

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon({ env: PORT_RANGES }));
    projectId = JSON.parse((await runInProcess(['project', 'create', 'stats-lab', '--use', '--json'], env)).stdout).project_id;
    const nodes: Record<string, string> = {};
    for (const name of ['H1', 'H2', 'H3']) nodes[name] = jsonOf(await run('node', 'create', name, '--type', 'ethernet_hub', '--json')).node_id;
    ids.a = jsonOf(await run('link', 'create', 'H1:0', 'H2:0', '--json')).link_id;
    ids.b = jsonOf(await run('link', 'create', 'H2:1', 'H3:0', '--json')).link_id;
    // Frames come in on a free port of H1 from a UDP socket of the test; the hubs flood them along a and b.
    source = await udpEndpoint();
    inlet = (await daemon.api('POST', `/v2/compute/projects/${projectId}/ports/udp`, {})).body.udp_port;
    const nio = await daemon.api('POST', `/v2/compute/projects/${projectId}/ethernet_hub/nodes/${nodes.H1}/adapters/0/ports/7/nio`,
      { type: 'nio_udp', lport: inlet, rhost: '127.0.0.1', rport: source.port });
    assert.equal(nio.status, 201, nio.text);
  });
  after(async () => {
    await source?.close();
    await stopCliDaemon({ daemon, home });
  });

  it('shows each link by name with its counters; they grow with traffic', TIMEOUT, async () => {
    const first = await run('link', 'stats');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    const before = cellsOf(first.stdout);
    assert.deepEqual(before[0], ['LINK', 'FRAMES IN', 'FRAMES OUT', 'BYTES IN', 'BYTES OUT', 'DROPS', 'ERRORS']);
    assert.deepEqual(before.slice(1).map((row) => row[0]), ['H1:0/0-H2:0/0', 'H2:0/1-H3:0/0']);
    for (const row of before.slice(1)) assert.match(row.slice(1).join(' '), /^\d+ \d+ \d+(\.\d)? k?B \d+(\.\d)? k?B \d+ \d+$/);

    const start = await traffic();
    await send(30);
    await untilGrown(start, 30);
    const after = cellsOf((await run('link', 'stats')).stdout);
    for (const i of [1, 2]) {
      const frames = (row: string[]) => Number(row[1]) + Number(row[2]);
      assert.ok(frames(after[i]) >= frames(before[i]) + 30, `${after[i][0]}: ${frames(before[i])} then ${frames(after[i])} frames`);
      assert.notEqual(after[i][3] + after[i][4], '0 B0 B', 'bytes counted');
    }
  });

  it('--json is the route\'s array as it came; one link by name or id narrows it', TIMEOUT, async () => {
    const all = jsonOf(await run('link', 'stats', '--json'));
    assert.deepEqual(all.map((t: any) => t.link_id).sort(), Object.values(ids).sort());
    for (const t of all) {
      assert.deepEqual(Object.keys(t).sort(), ['adapter_number', 'bytesIn', 'bytesOut', 'drops', 'errors', 'framesIn', 'framesOut', 'link_id', 'node_id', 'port_number', 'timestamp']);
      assert.ok(t.framesIn + t.framesOut >= 30);
    }
    const byName = jsonOf(await run('link', 'stats', 'H2:0/1-H3:0/0', '--json'));
    assert.deepEqual(byName.map((t: any) => t.link_id), [ids.b]);
    const byPrefix = await run('link', 'stats', ids.a.slice(0, 8));
    assert.equal(byPrefix.code, 0, byPrefix.stderr);
    assert.deepEqual(cellsOf(byPrefix.stdout).slice(1).map((row) => row[0]), ['H1:0/0-H2:0/0']);
  });

  it('an unknown link or project is one error line and a non-zero exit', TIMEOUT, async () => {
    assertFails(await run('link', 'stats', 'H9:0/0-H1:0/0'), 1, /^emuctl: .*H9/);
    assertFails(await run('link', 'stats', 'ffffffff'), 1, /^emuctl: no link matches "ffffffff"/);
    assertFails(await run('link', 'stats', '-p', 'no-such-project'), 1, /^emuctl: no project matches "no-such-project"/);
    assertFails(await run('link', 'stats', '--watch', '0'), 2, /--watch \[seconds\]' argument '0' is invalid. expected a positive number of seconds/);
  });

  it('--watch 1 piped: a block per period with rates, Ctrl-C ends it with exit 0', TIMEOUT, async () => {
    const blocks = (out: string) => out.split('\n\n').filter((b) => b.trim());
    // Frames keep coming while it watches, so the rates after the first block are not all zero.
    let sending = true;
    const sender = (async () => {
      while (sending) {
        await send(5);
        await sleep(100);
      }
    })();
    const w = await watchUntil(['link', 'stats', '--watch', '1'], env, (out) => blocks(out).length >= 3).finally(async () => {
      sending = false;
      await sender;
    });
    assert.ok(w.reached, `three blocks within the time; got: ${w.stdout}${w.stderr}`);
    assert.deepEqual([w.code, w.signal], [0, null], w.stderr);
    const [first, ...later] = blocks(w.stdout).map((b) => b.split('\n'));
    for (const block of [first, ...later]) {
      assert.match(block[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}every 1s, Ctrl-C to stop$/);
      assert.deepEqual(block[1].split(/ {2,}/), ['LINK', 'FRAMES/S IN', 'FRAMES/S OUT', 'BYTES/S IN', 'BYTES/S OUT', 'DROPS', 'ERRORS']);
      assert.deepEqual(block.slice(2).map((row) => row.split(/ {2,}/)[0]), ['H1:0/0-H2:0/0', 'H2:0/1-H3:0/0']);
    }
    assert.deepEqual(first.slice(2).map((row) => row.split(/ {2,}/).slice(1, 5)), [['-', '-', '-', '-'], ['-', '-', '-', '-']], 'no rates from one sample');
    const rates = later[0].slice(2).map((row) => row.split(/ {2,}/).slice(1, 5));
    for (const row of rates) {
      assert.match(row.join(' '), /^[\d.]+ [\d.]+ [\d.]+ k?B\/s [\d.]+ k?B\/s$/);
      assert.ok(Number(row[0]) + Number(row[1]) > 0, `frames flowed: ${row.join(' ')}`);
    }
  });

  it('--json --watch: one JSON line per period with the rates', TIMEOUT, async () => {
    const lines = (out: string) => out.split('\n').filter(Boolean);
    const w = await watchUntil(['link', 'stats', '--json', '--watch'], env, (out) => lines(out).length >= 2);
    assert.ok(w.reached, `two lines within the time; got: ${w.stdout}${w.stderr}`);
    assert.deepEqual([w.code, w.signal, w.stderr], [0, null, '']);
    const [first, second] = lines(w.stdout).map((line) => JSON.parse(line));
    assert.deepEqual(first.links.map((l: any) => [l.link_id, l.name, l.framesInPerSecond]), [[ids.a, 'H1:0/0-H2:0/0', null], [ids.b, 'H2:0/1-H3:0/0', null]]);
    for (const link of second.links) {
      for (const field of ['framesInPerSecond', 'framesOutPerSecond', 'bytesInPerSecond', 'bytesOutPerSecond', 'drops', 'errors']) assert.equal(typeof link[field], 'number', field);
      assert.ok(link.framesInPerSecond >= 0 && link.bytesOutPerSecond >= 0);
    }
    assert.ok(Date.parse(second.time) >= Date.parse(first.time));
  });

  it('--watch on a terminal redraws the table in place', TIMEOUT, async () => {
    const out = new BufferOutput({ isTTY: true, env });
    const running = runCli(['link', 'stats', 'H1:0-H2:0', '--watch', '0.2'], { out, env });
    const redraws = () => out.stdoutText().split(CLEAR_SCREEN).length - 1;
    for (let waited = 0; redraws() < 2 && waited < 30_000; waited += 100) await sleep(100);
    // The in-process run listens for SIGINT as the binary does: stop it as Ctrl-C would.
    process.emit('SIGINT');
    const r = { code: await running, stdout: out.stdoutText(), stderr: out.stderrText() };
    assert.equal(r.code, 0, r.stderr);
    const frames = r.stdout.split(CLEAR_SCREEN).slice(1);
    assert.ok(frames.length >= 2, `redrawn at least twice: ${JSON.stringify(r.stdout)}`);
    for (const frame of frames) assert.match(frame, /H1:0\/0-H2:0\/0/);
  });

  it('two started VPCS through a switch: both links counted, and they grow with a ping', TIMEOUT, async () => {
    const ok = async (...argv: string[]) => {
      // The project goes before a command's `--`, after which all is the command.
      const dashes = argv.includes('--') ? argv.indexOf('--') : argv.length;
      const r = await run(...argv.slice(0, dashes), '-p', 'vpcs-lab', ...argv.slice(dashes));
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}${r.stdout}`);
      return r;
    };
    assert.equal((await run('project', 'create', 'vpcs-lab')).code, 0);
    await ok('switch', 'create', 'SW1', '--ports', '4');
    for (const pc of ['PC1', 'PC2']) await ok('node', 'create', pc, '--type', 'vpcs');
    await ok('link', 'create', 'PC1:0/0', 'SW1:0/0');
    await ok('link', 'create', 'PC2:0/0', 'SW1:0/1');
    await ok('node', 'start', 'PC1');
    await ok('node', 'start', 'PC2');
    await ok('node', 'exec', 'PC1', '--', 'ip', '198.18.52.1/24');
    await ok('node', 'exec', 'PC2', '--', 'ip', '198.18.52.2/24');
    const frames = (t: any) => t.framesIn + t.framesOut;
    const before = jsonOf(await run('link', 'stats', '-p', 'vpcs-lab', '--json'));
    assert.equal(before.length, 2, 'both links have counters');
    await ok('node', 'exec', 'PC1', '--', 'ping', '198.18.52.2', '-c', '3');
    const after = jsonOf(await run('link', 'stats', '-p', 'vpcs-lab', '--json'));
    for (const t of after) {
      const was = before.find((b: any) => b.link_id === t.link_id);
      assert.ok(frames(t) >= frames(was) + 6, `link ${t.link_id}: ${frames(was)} then ${frames(t)} frames (3 echo requests and 3 replies)`);
    }
    const table = cellsOf((await ok('link', 'stats')).stdout);
    assert.deepEqual(table.slice(1).map((row) => row[0]), ['PC1:0/0-SW1:0/0', 'PC2:0/0-SW1:0/1']);
    for (const row of table.slice(1)) assert.ok(Number(row[1]) + Number(row[2]) >= 6, row.join(' | '));
  });
});

describe('link stats against a GNS3 server', () => {
  let gns3: FakeGns3;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    gns3 = await startFakeGns3();
    home = tempHome();
    env = cliEnv(home, { EMUCTL_URL: gns3.url });
    assert.equal((await runInProcess(['project', 'create', 'lab', '--use'], env)).code, 0);
  });
  after(async () => {
    await gns3.close();
    removeTempHome(home);
  });

  it('says in one line that link counters need an emuctl daemon, exit 1', async () => {
    for (const argv of [['link', 'stats'], ['link', 'stats', '--json'], ['link', 'stats', '--watch', '1']]) {
      assertFails(await runInProcess(argv, env), 1, new RegExp(`^emuctl: link counters need an emuctl daemon; ${gns3.url} is GNS3 ${FAKE_GNS3_VERSION}\\n$`));
    }
  });
});
