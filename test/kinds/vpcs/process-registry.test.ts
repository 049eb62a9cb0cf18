import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, afterEach, describe, test } from 'node:test';
import { identityOf, isRunning, readProcStat } from '../../../src/util/proc-info.js';
import { ProcessRegistry, cleanupDeadDaemons, daemonRegistry, type ProcessRecord } from '../../../src/daemon/compute/process/process-registry.js';
import { VPCS_CONSOLE_SOCKET_FILE, type VpcsProcessOptions } from '../../../src/daemon/kinds/vpcs/vpcs-process.js';
import { processListensOnUnix } from '../../../src/daemon/compute/process/proc-sockets.js';
import { PidJanitor, canBindTcp, canBindUdp, eventually, freeTcpPorts, freeUdpPorts, tempDir } from './vpcs-helpers.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'crashing-daemon.js');

describe('ProcessRegistry', () => {
  const janitor = new PidJanitor();
  const dir = tempDir();
  const children: ChildProcess[] = [];
  let n = 0;

  async function nodeOptions(count: number): Promise<VpcsProcessOptions[]> {
    const consoles = await freeTcpPorts(count);
    const udp = await freeUdpPorts(2 * count);
    return consoles.map((consolePort, i) => ({
      nodeDir: join(dir.path, `node${++n}`), consolePort, localUdpPort: udp[2 * i], remoteUdpPort: udp[2 * i + 1],
    }));
  }

  /** Spawns a child process that starts VPCS with a registry and prints their PIDs; returns them. */
  async function crashingDaemon(registryFile: string, nodes: VpcsProcessOptions[]) {
    const child = spawn(process.execPath, [fixture, JSON.stringify({ registryFile, nodes })], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const pids = JSON.parse(line) as { pid: number; workerPid: number }[];
    for (const p of pids) janitor.track(p.pid);
    for (const p of pids) janitor.track(p.workerPid);
    return { child, pids };
  }

  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    janitor.killAll();
  });
  after(() => dir.cleanup());

  test('after a SIGKILL of the daemon, cleanupLeftovers stops its VPCS and their workers and frees every port', async () => {
    const registryFile = join(dir.path, 'run', 'processes-1.json');
    const nodes = await nodeOptions(2);
    const { child, pids } = await crashingDaemon(registryFile, nodes);

    child.kill('SIGKILL');
    await once(child, 'exit');
    for (const p of pids) {
      assert.ok(isRunning(p.pid), 'VPCS outlives a SIGKILLed daemon (own session)');
      assert.ok(isRunning(p.workerPid));
    }
    for (const [i, node] of nodes.entries()) {
      // The console's TCP port was the dead daemon's relay; the leftover still serves the unix socket behind it.
      assert.ok(processListensOnUnix(pids[i].pid, VPCS_CONSOLE_SOCKET_FILE), 'console socket still held by the leftover');
      assert.equal(await canBindUdp(node.localUdpPort), false, 'UDP port still held by the leftover');
    }
    const recorded = await new ProcessRegistry(registryFile).list();
    assert.deepEqual(recorded.map((r) => r.pid).sort(), pids.map((p) => p.pid).sort());
    assert.ok(recorded.every((r) => r.workers.length === 1 && r.cwd && r.label));

    const report = await new ProcessRegistry(registryFile).cleanupLeftovers();
    assert.equal(report.stopped.length, 2);
    assert.deepEqual([report.notRunning.length, report.failed.length], [0, 0]);
    for (const p of pids) {
      assert.equal(isRunning(p.pid), false, `parent ${p.pid} gone`);
      assert.equal(isRunning(p.workerPid), false, `worker ${p.workerPid} gone`);
    }
    for (const node of nodes) {
      assert.equal(await canBindTcp(node.consolePort), true, 'console port free');
      assert.equal(await canBindUdp(node.localUdpPort), true, 'UDP port free');
    }
    assert.deepEqual(await new ProcessRegistry(registryFile).list(), [], 'records cleared');
  });

  test('an orphaned worker whose parent died before its PID was recorded is found by command line, cwd and session', async () => {
    const [node] = await nodeOptions(1);
    mkdirSync(node.nodeDir, { recursive: true });
    const argv = ['-p', String(node.consolePort), '-F', '-i', '1', '-m', '0', '-s', String(node.localUdpPort),
      '-c', String(node.remoteUdpPort), '-t', '127.0.0.1'];
    const vpcs = spawn('vpcs', argv, { cwd: node.nodeDir, detached: true, stdio: 'ignore' });
    const parent = vpcs.pid!;
    janitor.track(parent);
    assert.ok(await eventually(() => readdirSync('/proc').some((p) => readProcStat(Number(p))?.ppid === parent)));
    janitor.track(parent);
    const leader = identityOf(parent)!;
    const worker = readdirSync('/proc').map(Number).find((p) => readProcStat(p)?.ppid === parent)!;

    const registryFile = join(dir.path, 'orphan.json');
    await new ProcessRegistry(registryFile).add({ ...leader, cwd: node.nodeDir, startedAt: new Date().toISOString(), workers: [] });
    vpcs.kill('SIGKILL');
    await once(vpcs, 'exit');
    assert.ok(isRunning(worker), 'worker outlives a SIGKILL of its parent');

    const report = await new ProcessRegistry(registryFile).cleanupLeftovers();
    assert.equal(report.stopped.length, 1);
    assert.equal(isRunning(worker), false, 'orphaned worker stopped');
    assert.ok(await eventually(() => canBindUdp(node.localUdpPort)), 'UDP port free');
  });

  test('a recorded PID that now names another process is never signalled', async () => {
    const me = identityOf(process.pid)!;
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(sleeper);
    await once(sleeper, 'spawn');
    const sleeperId = identityOf(sleeper.pid!)!;
    const registryFile = join(dir.path, 'recycled.json');
    const registry = new ProcessRegistry(registryFile);
    const record = (r: Omit<ProcessRecord, 'startedAt' | 'workers'>): ProcessRecord =>
      ({ ...r, startedAt: new Date().toISOString(), workers: [] });
    await registry.add(record({ ...me, startTime: me.startTime - 1, cwd: process.cwd() }));
    await registry.add(record({ ...sleeperId, cmdline: ['vpcs', '-p', '5000'] }));
    await registry.add(record({ pid: 0x3ffffe, startTime: 1, cmdline: ['vpcs'] }));

    const report = await new ProcessRegistry(registryFile).cleanupLeftovers(200);
    assert.equal(report.notRunning.length, 3);
    assert.equal(report.stopped.length, 0);
    assert.ok(isRunning(process.pid));
    assert.ok(isRunning(sleeper.pid!), 'a process with another command line is left alone');
    assert.deepEqual(await registry.list(), []);
  });

  test('a recorded process with the same identity is stopped, with SIGKILL when it ignores SIGTERM', async () => {
    const stubborn = spawn('sh', ['-c', 'trap "" TERM; echo ready; while :; do sleep 0.05; done'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    children.push(stubborn);
    await once(stubborn.stdout!, 'data'); // The trap is in place only once the shell has run it.
    const registryFile = join(dir.path, 'stubborn.json');
    await new ProcessRegistry(registryFile).add({ ...identityOf(stubborn.pid!)!, startedAt: new Date().toISOString(), workers: [] });
    const started = Date.now();
    const report = await new ProcessRegistry(registryFile).cleanupLeftovers(300);
    assert.equal(report.stopped.length, 1);
    assert.ok(Date.now() - started >= 300, 'waited the grace period before SIGKILL');
    assert.ok(await eventually(() => !isRunning(stubborn.pid!)));
  });

  test('an unconfirmed intent finds its process by command line, cwd and start time; older look-alikes are left alone', async () => {
    const cwd = join(dir.path, 'intent');
    mkdirSync(cwd, { recursive: true });
    const argv = ['/bin/sleep', '61.5'];
    const older = spawn(argv[0], argv.slice(1), { cwd, stdio: 'ignore', detached: true });
    children.push(older);
    await once(older, 'spawn');
    await new Promise((r) => setTimeout(r, 1200)); // start times have 10 ms ticks; the intent allows 1 s of slack
    const registry = new ProcessRegistry(join(dir.path, 'intents.json'));
    await registry.intend({ cmdline: argv, cwd, label: 'sleeper' });
    await registry.intend({ cmdline: ['/bin/sleep', '99.5'], cwd, label: 'never spawned' });
    const spawned = spawn(argv[0], argv.slice(1), { cwd, stdio: 'ignore', detached: true });
    children.push(spawned);
    await once(spawned, 'spawn');
    assert.equal((await registry.intents()).length, 2);

    const report = await new ProcessRegistry(registry.filePath).cleanupLeftovers(500);
    assert.deepEqual(report.stopped.map((r) => [r.pid, r.label]), [[spawned.pid, 'sleeper']]);
    assert.deepEqual(report.notRunning.map((r) => r.label), ['never spawned']);
    assert.ok(await eventually(() => !isRunning(spawned.pid!)), 'the intended process is stopped');
    assert.ok(isRunning(older.pid!), 'a process with the same command line started before the intent is not touched');
    assert.deepEqual(await registry.intents(), []);
  });

  test('confirm replaces the intent with the process record in one write; a failed spawn drops its intent', async () => {
    const registry = new ProcessRegistry(join(dir.path, 'confirm.json'));
    const me = identityOf(process.pid)!;
    const id = await registry.intend({ cmdline: me.cmdline, cwd: process.cwd() });
    await registry.confirm(id, { ...me, startedAt: new Date().toISOString(), workers: [] });
    assert.deepEqual([(await registry.list()).map((r) => r.pid), await registry.intents()], [[me.pid], []]);
    const dropped = await registry.intend({ cmdline: ['/nonexistent'] });
    await registry.dropIntent(dropped);
    assert.deepEqual(await registry.intents(), []);
  });

  test('writes are atomic JSON files readable only by the owner, with no temp file left behind', async () => {
    const registryFile = join(dir.path, 'atomic', 'processes.json');
    const registry = new ProcessRegistry(registryFile);
    const me = identityOf(process.pid)!;
    await Promise.all([1, 2, 3].map((i) =>
      registry.add({ ...me, pid: me.pid + i * 100000, startedAt: new Date().toISOString(), workers: [] })));
    await registry.setWorkers(me.pid + 100000, [me]);
    await registry.remove(me.pid + 300000);
    const body = JSON.parse(readFileSync(registryFile, 'utf8'));
    assert.equal(body.version, 1);
    assert.deepEqual(body.processes.map((r: ProcessRecord) => r.pid), [me.pid + 100000, me.pid + 200000]);
    assert.equal(body.processes[0].workers[0].pid, me.pid);
    assert.equal(statSync(registryFile).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dirname(registryFile)), ['processes.json']);
  });

  test('a registry whose owning daemon runs is never cleaned up; once the owner is gone, the next daemon of the home stops its processes, whatever its port', async () => {
    const runDir = join(dir.path, 'shared-run');
    // The owner stands in for a daemon: the managed process is its child, as a VPCS is the daemon's.
    const owner = spawn('sh', ['-c', 'sleep 61 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(owner, other);
    const [line] = (await once(createInterface({ input: owner.stdout! }), 'line')) as [string];
    const managed = { pid: Number(line) };
    janitor.track(managed.pid);
    const ownerOf = (pid: number) => ({ pid, startTime: readProcStat(pid)!.startTime });
    const registry = daemonRegistry(runDir, 0, ownerOf(owner.pid!));
    await registry.add({ ...identityOf(managed.pid!)!, startedAt: new Date().toISOString(), workers: [] });
    // A look-alike intent of another (dead) daemon must not catch a process a running daemon started.
    const dead = daemonRegistry(runDir, 0, { pid: other.pid!, startTime: readProcStat(other.pid!)!.startTime });
    await dead.intend({ cmdline: identityOf(managed.pid!)!.cmdline });
    other.kill('SIGKILL');
    await once(other, 'exit');

    assert.deepEqual(await new ProcessRegistry(registry.filePath).cleanupLeftovers(200), { stopped: [], notRunning: [], failed: [] });
    const whileOwnerRuns = await cleanupDeadDaemons(runDir, 0, 200);
    assert.deepEqual([whileOwnerRuns.stopped.length, whileOwnerRuns.notRunning.length], [0, 1], 'the dead daemon\'s intent finds nothing of its own');
    assert.ok(isRunning(managed.pid!), 'the running daemon\'s process is left alone');
    assert.deepEqual(readdirSync(runDir), [basename(registry.filePath)], 'the dead daemon\'s cleaned registry is removed; the live one stays');

    assert.deepEqual((await cleanupDeadDaemons(runDir, 5000, 200)).stopped, [], 'a running daemon\'s registry is no other daemon\'s to clean, whatever its port');
    owner.kill('SIGKILL');
    await once(owner, 'exit');
    // The owner was configured with --port 0; restarted, it runs on the port it got then.
    const afterOwnerDied = await cleanupDeadDaemons(runDir, 5000, 200);
    assert.deepEqual(afterOwnerDied.stopped.map((r) => r.pid), [managed.pid]);
    assert.ok(await eventually(() => !isRunning(managed.pid!)));
    assert.deepEqual(readdirSync(runDir), []);
  });

  test('a torn or foreign registry file is read as empty instead of failing the daemon start', async () => {
    const registryFile = join(dir.path, 'torn.json');
    writeFileSync(registryFile, '{"version":1,"processes":[{"pid":12');
    assert.deepEqual(await new ProcessRegistry(registryFile).cleanupLeftovers(), { stopped: [], notRunning: [], failed: [] });
    writeFileSync(registryFile, JSON.stringify({ processes: [{ pid: 'x' }, { pid: 1, startTime: 1, cmdline: [], workers: [] }] }));
    assert.deepEqual(await new ProcessRegistry(registryFile).list(), []);
  });
});
