// VPCS confinement (native/vpcs-confine.c) with the real vpcs 0.5b2: its console's `!` runs nothing on
// the host, nothing is written outside its node directory, its console and UDP ports bind the daemon's
// address instead of 0.0.0.0. Each check also runs against an unconfined VPCS (or program) to show it can fail.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { connectVpcsConsole } from '../../../src/client/vpcs-console.js';
import { consoleBindAddress, VPCS_CONFINE_SHIM_PATH } from '../../../src/daemon/kinds/vpcs/confinement.js';
import { ConflictError } from '../../../src/daemon/errors.js';
import { VpcsProcess, type VpcsProcessOptions } from '../../../src/daemon/kinds/vpcs/vpcs-process.js';
import { PidJanitor, VpcsStarter, boundAddresses, eventually, freeTcpPorts, freeUdpPorts, processesIn, tempDir } from './vpcs-helpers.js';

/**
 * Sends what a browser sends for `fetch('http://127.0.0.1:PORT/', {method: 'POST', mode: 'no-cors', body})`:
 * the header block, then the body in a segment of its own (VPCS drops the rest of a read after a bad
 * command); resolves once VPCS has prompted again after the body's line.
 */
async function postToConsole(port: number, body: string): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  let seen = '';
  let check = () => {};
  socket.on('data', (chunk: Buffer) => { seen += chunk.toString('latin1'); check(); });
  const waitFor = (pattern: RegExp) => new Promise<void>((resolve, reject) => {
    check = () => { if (pattern.test(seen)) resolve(); };
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`console closed; it sent: ${seen}`)));
    check();
  });
  try {
    socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    await waitFor(/Bad command: "POST \/ HTTP\/1\.1"[\s\S]*> $/);
    socket.write(body);
    const line = body.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await waitFor(new RegExp(`${line}\\r?\\n[\\s\\S]*> $`));
  } finally {
    socket.destroy();
  }
}

describe('VPCS confinement', () => {
  const janitor = new PidJanitor();
  const dir = tempDir('emuctl-vpcs-confine-');

  const starter = new VpcsStarter(dir.path, janitor);
  const startVpcs = (extra: Partial<VpcsProcessOptions> = {}): Promise<VpcsProcess> => starter.start(extra);

  /** Runs console commands, then a last `echo` whose answer proves the ones before it were done. */
  async function typeAt(vpcs: VpcsProcess, host: string, ...commands: string[]): Promise<string> {
    const console = await connectVpcsConsole(host, vpcs.options.consolePort);
    try {
      let output = '';
      for (const command of commands) output += `${await console.run(command)}\n`;
      assert.match(await console.run('echo confined-sync'), /confined-sync/);
      return output;
    } finally {
      console.close();
    }
  }

  afterEach(async () => {
    await starter.stopAll();
    janitor.killAll();
  });
  after(() => dir.cleanup());

  test('the shim is built', () => {
    assert.ok(existsSync(VPCS_CONFINE_SHIM_PATH), `${VPCS_CONFINE_SHIM_PATH} missing: npm run build`);
  });

  test("`! touch` at the console runs nothing on the host; unconfined, the same line creates the file", async () => {
    const confined = await startVpcs();
    const marker = join(dir.path, 'marker-confined');
    await typeAt(confined, '127.0.0.1', `! touch ${marker}`, `! /bin/sh -c "touch ${marker}"`);
    assert.equal(existsSync(marker), false, 'a confined VPCS ran a host command');
    assert.ok(confined.isRunning, 'VPCS survives the refused command');

    const unconfined = await startVpcs({ confinement: 'unconfined' });
    const proof = join(dir.path, 'marker-unconfined');
    await typeAt(unconfined, '127.0.0.1', `! touch ${proof}`);
    assert.ok(await eventually(() => existsSync(proof)), 'unconfined VPCS runs `!` commands (the check above can fail)');
  });

  test('an HTTP POST to the console port (a web page\'s cross-protocol request) is dropped by the daemon\'s relay, one warning logged; unconfined its `!` body runs', async () => {
    const warnings: string[] = [];
    const confined = await startVpcs({ log: { warn: (m) => warnings.push(m) } });
    const marker = join(dir.path, 'marker-http');
    await assert.rejects(postToConsole(confined.options.consolePort, `! touch ${marker}\n`), /console closed; it sent: /);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /dropped a connection from 127\.0\.0\.1:\d+ whose first bytes are an HTTP request/);
    assert.ok(confined.isRunning);
    await typeAt(confined, '127.0.0.1', `save ${'saved-after-post'}`);
    assert.ok(existsSync(join(confined.options.nodeDir, 'saved-after-post.vpc')), 'a telnet client still reaches the console after the drop');
    assert.equal(existsSync(marker), false, 'the POST body ran a host command');

    const unconfined = await startVpcs({ confinement: 'unconfined' });
    const proof = join(dir.path, 'marker-http-unconfined');
    await postToConsole(unconfined.options.consolePort, `! touch ${proof}\n`);
    assert.ok(await eventually(() => existsSync(proof)), 'unconfined, the POST body runs (the check above can fail)');
  });

  test('save writes inside the node directory only: `save inside` works, paths out of it write nothing', async () => {
    const vpcs = await startVpcs();
    const outside = join(dir.path, 'outside');
    mkdirSync(outside, { recursive: true });
    await typeAt(vpcs, '127.0.0.1', 'save inside', `save ../outside/rel`, `save ${outside}/abs`, `save ${outside}/abs.vpc`);
    assert.ok(existsSync(join(vpcs.options.nodeDir, 'inside.vpc')), 'save inside writes inside.vpc');
    assert.deepEqual(['rel', 'rel.vpc', 'abs', 'abs.vpc'].filter((f) => existsSync(join(outside, f))), []);
  });

  test('the shim refuses a write outside the working directory to any program it is preloaded into; reads stay allowed', () => {
    const cwd = join(dir.path, 'shell');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(dir.path, 'readable'), 'read me\n');
    symlinkSync('../outside-link', join(cwd, 'link'));
    // Shell built-ins only: the shim refuses to run programs.
    const script = `echo in > inside; echo out > ../outside-rel; echo abs > ${dir.path}/outside-abs; echo l > link; read line < ../readable; echo "$line"`;
    const run = (env: NodeJS.ProcessEnv) => spawnSync('/bin/sh', ['-c', script], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
    const confined = run({ LD_PRELOAD: VPCS_CONFINE_SHIM_PATH });
    assert.equal(confined.stdout, 'read me\n');
    assert.ok(existsSync(join(cwd, 'inside')));
    assert.deepEqual(['outside-rel', 'outside-abs', 'outside-link'].filter((f) => existsSync(join(dir.path, f))), []);

    run({});
    assert.deepEqual(['outside-rel', 'outside-abs', 'outside-link'].filter((f) => existsSync(join(dir.path, f))), ['outside-rel', 'outside-abs', 'outside-link'],
      'without the shim the same script writes all three (the check above can fail)');
  });

  test('console, UDP and companion UDP ports bind the daemon address, not 0.0.0.0; unconfined they bind 0.0.0.0', async () => {
    const vpcs = await startVpcs({ confinement: { consoleHost: '127.0.0.2' } });
    const { consolePort, localUdpPort } = vpcs.options;
    assert.deepEqual(boundAddresses(vpcs.pid!, 'tcp'), [], 'VPCS serves its console on a unix socket: it holds no TCP socket');
    assert.deepEqual(boundAddresses(process.pid, 'tcp').filter((a) => a.endsWith(`:${consolePort}`)), [`127.0.0.2:${consolePort}`], "the daemon's relay listens on the daemon address");
    const socketMode = statSync(join(vpcs.options.nodeDir, 'console.sock')).mode;
    assert.equal(socketMode & 0o777 & ~0o700, 0, `console.sock is the owner's only (mode ${(socketMode & 0o777).toString(8)})`);
    const udp = [`127.0.0.1:${localUdpPort}`, `127.0.0.1:${localUdpPort + 9}`];
    // The companion port is bound by a thread of the worker, maybe after start() returned.
    await eventually(() => boundAddresses(vpcs.workerPid!, 'udp').length === 2);
    assert.deepEqual(boundAddresses(vpcs.workerPid!, 'udp'), udp);
    await typeAt(vpcs, '127.0.0.2');

    const bare = await startVpcs({ confinement: 'unconfined' });
    assert.deepEqual(boundAddresses(bare.pid!, 'tcp'), [`0.0.0.0:${bare.options.consolePort}`], 'unconfined VPCS binds the wildcard (the check above can fail)');
  });

  test('`relay port` rebinds the relay hub port on loopback too', async () => {
    const vpcs = await startVpcs();
    const [hub] = await freeUdpPorts(1);
    await typeAt(vpcs, '127.0.0.1', `relay port ${hub}`);
    assert.ok(await eventually(() => boundAddresses(vpcs.workerPid!, 'udp').includes(`127.0.0.1:${hub}`)), boundAddresses(vpcs.workerPid!, 'udp').join(' '));
  });

  test('a missing shim is a ConflictError that names it and starts nothing', async () => {
    const [[consolePort], [localUdpPort, remoteUdpPort]] = [await freeTcpPorts(1), await freeUdpPorts(2)];
    const nodeDir = join(dir.path, 'no-shim');
    const vpcs = new VpcsProcess({ nodeDir, consolePort, localUdpPort, remoteUdpPort, confinement: { shim: join(dir.path, 'absent.so') } });
    await assert.rejects(vpcs.start(), (err: Error) => err instanceof ConflictError && /vpcs confinement shim not built .*absent\.so.*scripts\/setup\.sh/.test(err.message));
    assert.deepEqual(processesIn(nodeDir), []);
  });

  test('a shim ld.so cannot load (not a shared object) is refused after start and VPCS is stopped', async () => {
    const fake = join(dir.path, 'fake-shim.so');
    writeFileSync(fake, 'not an ELF file\n');
    const [[consolePort], [localUdpPort, remoteUdpPort]] = [await freeTcpPorts(1), await freeUdpPorts(2)];
    const nodeDir = join(dir.path, 'fake-shim');
    const vpcs = new VpcsProcess({ nodeDir, consolePort, localUdpPort, remoteUdpPort, confinement: { shim: fake } });
    await assert.rejects(vpcs.start(), (err: Error) => err instanceof ConflictError && /did not load the confinement shim/.test(err.message));
    assert.ok(await eventually(() => processesIn(nodeDir).length === 0), 'nothing left running');
  });

  test('consoleBindAddress: IPv4 kept, wildcards to 0.0.0.0, IPv6 loopback and names to IPv4', async () => {
    assert.equal(await consoleBindAddress('127.0.0.1'), '127.0.0.1');
    assert.equal(await consoleBindAddress('198.18.0.5'), '198.18.0.5');
    assert.equal(await consoleBindAddress('0.0.0.0'), '0.0.0.0');
    assert.equal(await consoleBindAddress('::'), '0.0.0.0');
    assert.equal(await consoleBindAddress('[::1]'), '127.0.0.1');
    assert.equal(await consoleBindAddress('::ffff:127.0.0.3'), '127.0.0.3');
    assert.equal(await consoleBindAddress('localhost'), '127.0.0.1');
  });
});
