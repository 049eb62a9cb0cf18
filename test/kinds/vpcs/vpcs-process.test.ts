import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { connectVpcsConsole } from '../../../src/client/vpcs-console.js';
import { ConflictError } from '../../../src/daemon/errors.js';
import { isRunning } from '../../../src/util/proc-info.js';
import { writeStartupConfig } from '../../../src/daemon/kinds/vpcs/startup-config.js';
import { VpcsProcess, type VpcsExit, type VpcsProcessOptions } from '../../../src/daemon/kinds/vpcs/vpcs-process.js';
import { PidJanitor, canBindTcp, canBindUdp, eventually, freeTcpPorts, freeUdpPorts, psLine, tempDir } from './vpcs-helpers.js';

describe('VpcsProcess', () => {
  const janitor = new PidJanitor();
  const dir = tempDir();
  const started: VpcsProcess[] = [];
  let n = 0;

  async function options(extra: Partial<VpcsProcessOptions> = {}): Promise<VpcsProcessOptions> {
    const [[consolePort], [localUdpPort, remoteUdpPort]] = [await freeTcpPorts(1), await freeUdpPorts(2)];
    return { nodeDir: join(dir.path, `node${++n}`), consolePort, localUdpPort, remoteUdpPort, ...extra };
  }

  async function startVpcs(extra: Partial<VpcsProcessOptions> = {}): Promise<VpcsProcess> {
    const vpcs = new VpcsProcess(await options(extra));
    started.push(vpcs);
    await vpcs.start();
    janitor.track(vpcs.pid);
    return vpcs;
  }

  afterEach(async () => {
    await Promise.allSettled(started.splice(0).map((v) => v.stop()));
    janitor.killAll();
  });
  after(() => dir.cleanup());

  test('runs in the foreground in its own session with a forkpty worker in another session', async () => {
    const vpcs = await startVpcs();
    const parent = psLine(vpcs.pid!)!;
    const worker = psLine(vpcs.workerPid!)!;
    assert.equal(parent.ppid, process.pid, 'with -F the spawned PID is VPCS itself');
    assert.equal(parent.sid, parent.pid, 'VPCS calls setsid()');
    assert.equal(worker.ppid, parent.pid);
    assert.equal(worker.sid, worker.pid, 'forkpty() gives the worker a session of its own');
    assert.notEqual(worker.sid, parent.sid);
  });

  test('stop() leaves neither parent nor worker and frees the console and UDP ports', async () => {
    const opts = await options();
    const vpcs = new VpcsProcess(opts);
    started.push(vpcs);
    await vpcs.start();
    const [pid, workerPid] = [vpcs.pid!, vpcs.workerPid!];
    janitor.track(pid);
    assert.equal(await canBindTcp(opts.consolePort), false, 'console port held while running');
    assert.equal(await canBindUdp(opts.localUdpPort), false, 'UDP port held while running');

    await vpcs.stop();
    assert.equal(isRunning(pid), false, 'parent gone');
    assert.equal(isRunning(workerPid), false, 'worker gone');
    assert.equal(vpcs.isRunning, false);
    assert.equal(await canBindTcp(opts.consolePort), true, 'console port free');
    assert.equal(await canBindUdp(opts.localUdpPort), true, 'UDP port free');
  });

  test('a SIGKILLed VPCS is reported, and its orphaned worker is ended so the UDP port is freed', async () => {
    const vpcs = await startVpcs();
    const workerPid = vpcs.workerPid!;
    const exited = once(vpcs, 'exit') as Promise<[VpcsExit]>;
    process.kill(vpcs.pid!, 'SIGKILL');
    const [exit] = await exited;
    assert.equal(exit.signal, 'SIGKILL');
    assert.match(exit.reason, /signal SIGKILL/);
    assert.ok(await eventually(() => !isRunning(workerPid)), 'orphaned worker ended');
    const { localUdpPort } = vpcs.options;
    assert.ok(await eventually(() => canBindUdp(localUdpPort)), 'UDP port free');
  });

  test('a worker that dies alone takes its parent down and is reported', async () => {
    const vpcs = await startVpcs({ watchIntervalMs: 100 });
    const exited = once(vpcs, 'exit') as Promise<[VpcsExit]>;
    const pid = vpcs.pid!;
    process.kill(vpcs.workerPid!, 'SIGKILL');
    const [exit] = await exited;
    assert.match(exit.reason, /worker ended/);
    assert.equal(isRunning(pid), false);
  });

  test('a console port already in use is a ConflictError before anything starts', async () => {
    const opts = await options();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(opts.consolePort, '127.0.0.1', resolve));
    try {
      await assert.rejects(new VpcsProcess(opts).start(), (err: Error) =>
        err instanceof ConflictError && err.message === `Console port ${opts.consolePort} is already in use`);
    } finally {
      blocker.close();
    }
  });

  test('vpcs.log in the node directory records each start', async () => {
    const vpcs = await startVpcs();
    assert.match(readFileSync(vpcs.logPath, 'utf8'), /^--- \S+ \S*vpcs -p \d+ -F -i 1 -m 0 -s \d+ -c \d+ -t 127\.0\.0\.1$/m);
    assert.equal(statSync(vpcs.logPath).mode & 0o777, 0o600, 'vpcs.log is the owner\'s only, whatever the umask');
  });

  test('a vpcs.log an older version left 0644 becomes 0600 at the next start', async () => {
    const opts = await options();
    mkdirSync(opts.nodeDir, { recursive: true });
    writeFileSync(join(opts.nodeDir, 'vpcs.log'), 'old run\n', { mode: 0o644 });
    chmodSync(join(opts.nodeDir, 'vpcs.log'), 0o644);
    const vpcs = new VpcsProcess(opts);
    started.push(vpcs);
    await vpcs.start();
    janitor.track(vpcs.pid);
    assert.equal(statSync(vpcs.logPath).mode & 0o777, 0o600);
    assert.match(readFileSync(vpcs.logPath, 'utf8'), /^old run\n/);
  });

  test('a UDP port already in use is a ConflictError before anything starts', async () => {
    const opts = await options();
    const { createSocket } = await import('node:dgram');
    const holder = createSocket('udp4');
    await new Promise<void>((resolve) => holder.bind(opts.localUdpPort, '0.0.0.0', resolve));
    try {
      await assert.rejects(new VpcsProcess(opts).start(), (err: Error) =>
        err instanceof ConflictError && err.message === `UDP port ${opts.localUdpPort} is already in use`);
    } finally {
      holder.close();
    }
  });

  test('startup.vpc in the node directory is passed and applied, so settings survive a restart', async () => {
    const opts = await options();
    await writeStartupConfig(dirname(opts.nodeDir), opts.nodeDir, 'set pcname PC7\nip 10.9.0.7/24 10.9.0.1\n');
    const vpcs = new VpcsProcess(opts);
    started.push(vpcs);
    assert.equal(vpcs.arguments().at(-1), 'startup.vpc');
    await vpcs.start();
    janitor.track(vpcs.pid);
    const session = await connectVpcsConsole('127.0.0.1', opts.consolePort, { timeoutMs: 15_000 });
    try {
      assert.equal(session.name, 'PC7');
      assert.match(await session.run('show ip'), /IP\/MASK\s+: 10\.9\.0\.7\/24\nGATEWAY\s+: 10\.9\.0\.1/);
    } finally {
      session.close();
    }
  });

  test('a missing binary is a ConflictError that says how to install VPCS', async () => {
    const vpcs = new VpcsProcess(await options({ binary: join(dir.path, 'no-such-vpcs') }));
    await assert.rejects(vpcs.start(), (err: Error) =>
      err instanceof ConflictError && /apt-get install vpcs/.test(err.message) && err.message.includes('no-such-vpcs'));
  });

  test('a binary name not on PATH is a ConflictError too', async () => {
    const vpcs = new VpcsProcess(await options({ binary: 'vpcs-not-installed-here' }));
    await assert.rejects(vpcs.start(), (err: Error) =>
      err instanceof ConflictError && /not on PATH.*apt-get install vpcs/.test(err.message));
  });

  test('an early exit is an error carrying what VPCS printed', async () => {
    const script = join(dir.path, 'fake-vpcs.sh');
    const { writeFileSync, chmodSync } = await import('node:fs');
    writeFileSync(script, '#!/bin/sh\necho "Daemon bind port: something broke" >&2\nexit 3\n');
    chmodSync(script, 0o755);
    const vpcs = new VpcsProcess(await options({ binary: script }));
    await assert.rejects(vpcs.start(), /VPCS exited \(code 3\) while starting: Daemon bind port: something broke/);
  });

  test('invalid options are rejected up front', async () => {
    await assert.rejects(async () => new VpcsProcess(await options({ macByte: 256 })), /macByte must be 0-255/);
    await assert.rejects(async () => new VpcsProcess(await options({ consolePort: 0 })), /consolePort must be a port/);
  });
});
