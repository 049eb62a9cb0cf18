// daemon start|stop|status|run through the binary, on ephemeral ports (--port 0), EMUCTL_HOME in a temp dir.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isProcessAlive } from '../../src/config/pid-file.js';
import { identityOf } from '../../src/util/proc-info.js';
import { cliEnv, EMUCTL_BIN, removeTempHome, runBin, tempHome } from './helpers/cli.js';
import { occupyPort } from './helpers/ports.js';

/** A port number no daemon of these tests' temporary homes has a pid file for. */
const UNUSED_PORT = 39001;

const started = new Set<number>();
const homes: string[] = [];

/** Kills, by PID, every daemon these tests started that is still alive. */
after(() => {
  for (const pid of started) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  homes.forEach(removeTempHome);
});

function home(): string {
  const dir = tempHome();
  homes.push(dir);
  return dir;
}

describe('daemon start, status, stop', () => {
  it('starts detached on --port 0, reports the port it got, status, refuses a second start, stops gracefully', async () => {
    const dir = home();
    const env = cliEnv(dir);
    const start = await runBin(['daemon', 'start', '--port', '0', '--gns3-version', '2.2.40', '--dataplane', 'js', '--json'], env);
    assert.equal(start.code, 0, start.stderr);
    const info = JSON.parse(start.stdout);
    started.add(info.pid);
    const port: number = info.port;
    assert.ok(port > 0);
    assert.equal(info.url, `http://127.0.0.1:${port}`);
    assert.equal(info.pidFile, join(dir, 'run', `daemon-${port}.pid`));
    assert.ok(isProcessAlive(info.pid));
    const record = JSON.parse(readFileSync(info.pidFile, 'utf8'));
    const identity = identityOf(info.pid)!;
    assert.deepEqual([record.pid, record.startTime, record.cmdline], [info.pid, identity.startTime, identity.cmdline], 'pid, start time and command line');
    assert.match(readFileSync(join(dir, 'log', 'daemon-0.log'), 'utf8'), new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`));

    const status = await runBin(['daemon', 'status', '--port', String(port)], env);
    assert.equal(status.code, 0);
    assert.match(status.stdout, new RegExp(`^status: +running\\npid: +${info.pid}\\nurl: +http://127\\.0\\.0\\.1:${port}\\nversion: +\\d`));
    assert.match(status.stdout, /^uptime: +\d+s$/m);
    assert.match(status.stdout, /^version: +2\.2\.40$/m, 'the detached daemon got --gns3-version');
    assert.match(readFileSync(join(dir, 'log', 'daemon-0.log'), 'utf8'), /, js dataplane$/m, 'the detached daemon got --dataplane js');

    const again = await runBin(['daemon', 'start', '--port', String(port)], env);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already running/);

    const projects = await runBin(['project', 'create', 'kept', '--url', info.url], env);
    assert.equal(projects.code, 0, projects.stderr);

    const stop = await runBin(['daemon', 'stop', '--port', String(port)], env);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`Stopped emuctl daemon on http://127\\.0\\.0\\.1:${port} \\(pid ${info.pid}\\)`));
    assert.equal(isProcessAlive(info.pid), false);
    assert.equal(existsSync(join(dir, 'run', `daemon-${port}.pid`)), false);

    const down = await runBin(['daemon', 'status', '--port', String(port), '--json'], env);
    assert.equal(down.code, 3);
    assert.equal(JSON.parse(down.stdout).running, false);
    const stopAgain = await runBin(['daemon', 'stop', '--port', String(port)], env);
    assert.equal(stopAgain.code, 0);
    assert.match(stopAgain.stdout, /is not running/);
  });

  it('fails with the log tail when the port is in use, exit 1', async () => {
    const dir = home();
    const busy = await occupyPort();
    try {
      const r = await runBin(['daemon', 'start', '--port', String(busy.port), '--timeout', '8'], cliEnv(dir));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /last lines of .*daemon-\d+\.log:\n/);
      assert.match(r.stderr, new RegExp(`port ${busy.port} .*already in use`));
      assert.match(r.stderr, /emuctl: the daemon did not start: it ended \(exit code 1\)/);
    } finally {
      await busy.close();
    }
  });

  it('status of a daemon that is not running: exit 3; stop removes a stale pid file', async () => {
    const dir = home();
    const env = cliEnv(dir);
    const port = UNUSED_PORT;
    const status = await runBin(['daemon', 'status', '--port', String(port)], env);
    assert.deepEqual([status.code, status.stdout], [3, `emuctl daemon on port ${port}: not running\n`]);

    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.once('exit', resolve));
    const pidFile = join(dir, 'run', `daemon-${port}.pid`);
    mkdirSync(join(dir, 'run'), { recursive: true });
    writeFileSync(pidFile, JSON.stringify({ pid: gone.pid, url: `http://127.0.0.1:${port}`, startedAt: new Date().toISOString() }));
    assert.equal((await runBin(['daemon', 'status', '--port', String(port)], env)).code, 3);
    const stop = await runBin(['daemon', 'stop', '--port', String(port)], env);
    assert.deepEqual([stop.code, stop.stdout], [0, `emuctl daemon on port ${port} is not running (removed a stale pid file)\n`]);
    assert.equal(existsSync(pidFile), false);
  });

  it('stop never signals a process that merely reuses the recorded pid: the pid file is stale, the process left alone', async () => {
    const dir = home();
    const port = UNUSED_PORT;
    const bystander = spawn(process.execPath, ['-e', "console.log('ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.add(bystander.pid!);
    await new Promise((resolve) => bystander.stdout!.once('data', resolve));
    const real = identityOf(bystander.pid!)!;
    const pidFile = join(dir, 'run', `daemon-${port}.pid`);
    mkdirSync(join(dir, 'run'), { recursive: true });
    const url = `http://127.0.0.1:${port}`;
    for (const recorded of [{ startTime: real.startTime - 1, cmdline: real.cmdline }, { startTime: real.startTime, cmdline: [process.execPath, 'emuctl.js', 'daemon', 'run'] }]) {
      writeFileSync(pidFile, JSON.stringify({ pid: bystander.pid, url, startedAt: new Date().toISOString(), ...recorded }));
      const status = await runBin(['daemon', 'status', '--port', String(port)], cliEnv(dir));
      assert.equal(status.code, 3, 'not running');
      const stop = await runBin(['daemon', 'stop', '--port', String(port)], cliEnv(dir));
      assert.deepEqual([stop.code, stop.stdout], [0, `emuctl daemon on port ${port} is not running (removed a stale pid file: pid ${bystander.pid} is now another process, left alone)\n`]);
      assert.equal(existsSync(pidFile), false);
      assert.ok(isProcessAlive(bystander.pid!), 'the other process was not signalled');
    }
    // A record without start time and command line cannot be checked: nothing is signalled, exit 1.
    writeFileSync(pidFile, JSON.stringify({ pid: bystander.pid, url, startedAt: new Date().toISOString() }));
    const old = await runBin(['daemon', 'stop', '--port', String(port)], cliEnv(dir));
    assert.equal(old.code, 1);
    assert.match(old.stderr, new RegExp(`names pid ${bystander.pid} without its start time and command line .* it is not signalled`));
    assert.ok(isProcessAlive(bystander.pid!));
    bystander.kill('SIGKILL');
  });

  it('stop falls back to SIGKILL after the timeout, and says so', async () => {
    const dir = home();
    const port = UNUSED_PORT;
    // A real process that ignores SIGTERM, recorded as the daemon of that port.
    const stubborn = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.add(stubborn.pid!);
    await new Promise((resolve) => stubborn.stdout!.once('data', resolve));
    const exited = new Promise((resolve) => stubborn.once('exit', (_code, signal) => resolve(signal)));
    mkdirSync(join(dir, 'run'), { recursive: true });
    const pidFile = join(dir, 'run', `daemon-${port}.pid`);
    const { startTime, cmdline } = identityOf(stubborn.pid!)!;
    writeFileSync(pidFile, JSON.stringify({ pid: stubborn.pid, url: `http://127.0.0.1:${port}`, startedAt: new Date().toISOString(), startTime, cmdline }));
    const stop = await runBin(['daemon', 'stop', '--port', String(port), '--timeout', '1', '--json'], cliEnv(dir));
    assert.equal(stop.code, 0, stop.stderr);
    assert.deepEqual(JSON.parse(stop.stdout), { stopped: true, forced: true, pid: stubborn.pid, url: `http://127.0.0.1:${port}`, port });
    assert.match(stop.stderr, new RegExp(`warning: the daemon \\(pid ${stubborn.pid}\\) did not stop within 1 s; killed it with SIGKILL`));
    assert.equal(await exited, 'SIGKILL');
    assert.equal(existsSync(pidFile), false);
  });
});

describe('daemon run', () => {
  it('runs in the foreground on --port 0, says on stdout which port it got, until SIGTERM; then exits 0 and removes its pid file', async () => {
    const dir = home();
    const child = spawn(process.execPath, [EMUCTL_BIN, 'daemon', 'run', '--port', '0'], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    started.add(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (chunk) => {
        stdout += chunk;
        const m = /^emuctl daemon listening on http:\/\/127\.0\.0\.1:(\d+) \(pid (\d+), pid file (.*)\)\n/.exec(stdout);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stdout}${stderr}`)));
    });
    assert.ok(port > 0);
    assert.equal(stdout, `emuctl daemon listening on http://127.0.0.1:${port} (pid ${child.pid}, pid file ${join(dir, 'run', `daemon-${port}.pid`)})\n`);
    assert.match(stderr, new RegExp(`emuctl daemon .*listening on http://127\\.0\\.0\\.1:${port}`));
    assert.equal(JSON.parse(readFileSync(join(dir, 'run', `daemon-${port}.pid`), 'utf8')).pid, child.pid);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.equal(existsSync(join(dir, 'run', `daemon-${port}.pid`)), false);
  });

  it('fails with a usage error for an invalid setting, exit 2', async () => {
    const r = await runBin(['daemon', 'run', '--port', '1', '--config', '/nonexistent/daemon.json'], cliEnv(home()));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cannot read config file/);
  });
});
