// `emuctl events` run as a process (bin/emuctl.js) against real daemons: -c, --until, --type,
// --json purity, reconnection after a daemon restart, --no-reconnect, and the exit codes.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createNode, createProject } from '../helpers/lab.js';
import { cliEnv, EMUCTL_BIN, removeTempHome, runBin, tempHome, startCliDaemon, stopCliDaemon } from './helpers/cli.js';

const PORT_RANGES = { EMUCTL_UDP_PORT_RANGE: '22520-22569', EMUCTL_CONSOLE_PORT_RANGE: '20450-20459' };

/** A running `emuctl events …`. */
interface EventsRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr matches. */
  stderrMatches(re: RegExp, timeoutMs?: number): Promise<void>;
  exit: Promise<number | null>;
}

function startEvents(argv: string[], env: NodeJS.ProcessEnv): EventsRun {
  const child = spawn(process.execPath, [EMUCTL_BIN, 'events', ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async stderrMatches(re, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!re.test(err)) {
        if (child.exitCode !== null) throw new Error(`emuctl events exited (${child.exitCode}): ${err}`);
        if (Date.now() > deadline) throw new Error(`stderr never matched ${re}: ${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exit,
  };
}

describe('emuctl events against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  const runs: EventsRun[] = [];
  const events = async (...argv: string[]) => {
    const run = startEvents(argv, env);
    runs.push(run);
    await run.stderrMatches(/listening to/);
    return run;
  };

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon({ env: PORT_RANGES }));
    projectId = await createProject(daemon, 'evlab');
    assert.equal((await runBin(['project', 'use', 'evlab'], env)).code, 0);
  });
  after(async () => {
    for (const r of runs) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    await stopCliDaemon({ daemon, home });
  });

  it('-c N --json: N events as NDJSON exactly as the server sent them, pings not counted, exit 0', async () => {
    const run = await events('-c', '2', '--json');
    const sw = await createNode(daemon, projectId, 'SW-c', 'ethernet_switch');
    await daemon.api('PUT', `/v2/projects/${projectId}/nodes/${sw.node_id}`, { x: 10 });
    await daemon.api('PUT', `/v2/projects/${projectId}/nodes/${sw.node_id}`, { x: 20 });
    assert.equal(await run.exit, 0, run.stderr());
    const lines = run.stdout().split('\n');
    assert.equal(lines.pop(), '', 'ends with a newline');
    assert.equal(lines.length, 2);
    const [created, updated] = lines.map((l) => JSON.parse(l));
    assert.deepEqual(Object.keys(created), ['action', 'event'], 'as received: the server\'s key order');
    assert.deepEqual([created.action, created.event.name], ['node.created', 'SW-c']);
    assert.deepEqual([updated.action, updated.event.x], ['node.updated', 10]);
    assert.equal(lines[1], JSON.stringify(updated), 'one line, unchanged');
  });

  it('--until ACTION:NAME: exits 0 on the first match and not before', async () => {
    const other = await createNode(daemon, projectId, 'SW-other', 'ethernet_switch');
    const target = await createNode(daemon, projectId, 'SW-target', 'ethernet_switch');
    const run = await events('--until', 'node.updated:SW-target');
    await daemon.api('PUT', `/v2/projects/${projectId}/nodes/${other.node_id}`, { x: 5 });
    await daemon.api('PUT', `/v2/projects/${projectId}/nodes/${target.node_id}`, { name: 'SW-target', y: 7 });
    assert.equal(await run.exit, 0, run.stderr());
    const lines = run.stdout().trimEnd().split('\n');
    assert.equal(lines.length, 2, run.stdout());
    assert.match(lines[0], /^\d\d:\d\d:\d\d node\.updated SW-other x 0→5$/);
    assert.match(lines[1], /^\d\d:\d\d:\d\d node\.updated SW-target y 0→7$/);
  });

  it('--type filters actions; with -c only the shown ones count', async () => {
    const run = await events('--type', 'link.*,node.deleted', '-c', '2', '--json');
    const a = await createNode(daemon, projectId, 'HUB-a', 'ethernet_hub');
    const b = await createNode(daemon, projectId, 'HUB-b', 'ethernet_hub');
    const link = await daemon.api('POST', `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: a.node_id, adapter_number: 0, port_number: 0 }, { node_id: b.node_id, adapter_number: 0, port_number: 0 }],
    });
    assert.equal(link.status, 201, link.text);
    await daemon.api('DELETE', `/v2/projects/${projectId}/links/${link.body.link_id}`);
    assert.equal(await run.exit, 0, run.stderr());
    assert.deepEqual(run.stdout().trimEnd().split('\n').map((l) => JSON.parse(l).action), ['link.created', 'link.deleted']);
  });

  it('--pings shows the pings, which never count', async () => {
    const run = await events('--pings', '--json', '-c', '1');
    await createNode(daemon, projectId, 'SW-p', 'ethernet_switch');
    assert.equal(await run.exit, 0, run.stderr());
    const actions = run.stdout().trimEnd().split('\n').map((l) => JSON.parse(l).action);
    assert.equal(actions[0], 'ping', 'the first ping is shown');
    assert.deepEqual(actions.filter((a) => a !== 'ping'), ['node.created']);
  });

  it('the controller stream with --controller; a project that does not exist is exit 1, an unreachable server exit 3', async () => {
    const run = await events('--controller', '--until', 'project.created', '--json');
    await createProject(daemon, 'another');
    assert.equal(await run.exit, 0, run.stderr());
    assert.equal(JSON.parse(run.stdout()).event.name, 'another');
    const missing = await runBin(['events', '-p', 'no-such-project'], env);
    assert.equal(missing.code, 1, missing.stderr);
    const down = await runBin(['events', '--url', 'http://127.0.0.1:9'], env);
    assert.equal(down.code, 3, down.stderr);
    assert.equal(down.stdout, '');
    assert.equal(down.stderr.trimEnd().split('\n').length, 1, down.stderr);
  });
});

describe('emuctl events across a daemon restart', () => {
  it('reconnects on its own; --no-reconnect exits 3 instead', async () => {
    let daemon = await startTestDaemon({ env: PORT_RANGES });
    const home = tempHome();
    const env = cliEnv(home, { EMUCTL_URL: daemon.url });
    const following = startEvents(['--controller', '--json', '--until', 'project.created:after-restart'], env);
    const once = startEvents(['--controller', '--no-reconnect'], env);
    try {
      await following.stderrMatches(/listening to/);
      await once.stderrMatches(/listening to/);
      const port = daemon.port;
      assert.equal(await daemon.stop(), 0);
      assert.equal(await once.exit, 3, once.stderr());
      assert.match(once.stderr(), /notification stream of the controller ended/);
      await following.stderrMatches(/reconnecting/);
      daemon = await startTestDaemon({ home: daemon.home, flags: { port }, env: PORT_RANGES });
      await following.stderrMatches(/reconnected to the controller/);
      await createProject(daemon, 'after-restart');
      assert.equal(await following.exit, 0, following.stderr());
      assert.equal(JSON.parse(following.stdout()).event.name, 'after-restart');
    } finally {
      for (const r of [following, once]) if (r.child.exitCode === null) r.child.kill('SIGKILL');
      await daemon.stop();
      removeHome(daemon.home);
      removeTempHome(home);
    }
  });
});
