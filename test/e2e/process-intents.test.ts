// Emulator processes are never untracked (issue 11): a daemon killed between spawning a VPCS or
// QEMU process and recording it leaves a write-ahead intent by which its successor finds and stops
// the process; and children get a minimal environment, never the daemon's secrets.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isRunning, readCmdline } from '../../src/util/proc-info.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { guestCmdline, testGuest, type TestGuest } from '../helpers/qemu-guest.js';
import { canBindTcp, eventually, processesIn } from '../kinds/vpcs/vpcs-helpers.js';

const PORTS = { EMUCTL_UDP_PORT_RANGE: '19800-19899', EMUCTL_CONSOLE_PORT_RANGE: '28350-28399', EMUCTL_QEMU_ACCEL: 'tcg' };

/** The process registry files in a daemon home's run directory. */
function registryFiles(home: string): string[] {
  return readdirSync(join(home, 'run')).filter((name) => name.startsWith('processes-'));
}

describe('emulator processes survive no daemon crash untracked, and never see its environment', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-e2e-intents-'));
  let guest: TestGuest;
  const daemons: TestDaemon[] = [];
  const leftovers: number[] = [];

  before(async () => {
    guest = await testGuest();
  });
  after(async () => {
    for (const d of daemons) await d.stop();
    for (const pid of leftovers) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    removeHome(tmp);
  });

  const start = async (home: string, env: NodeJS.ProcessEnv = {}) => {
    const d = await startTestDaemon({ home, env: { ...PORTS, ...env } });
    daemons.push(d);
    return d;
  };

  it('a VPCS gets PATH and a locale, not EMUCTL_AUTH_PASSWORD or any other daemon variable', async () => {
    const d = await start(join(tmp, 'environ'), { EMUCTL_AUTH_USER: 'admin', EMUCTL_AUTH_PASSWORD: 'not-for-children', EMUCTL_SECRET_PROBE: 'x' });
    const auth = { authorization: `Basic ${Buffer.from('admin:not-for-children').toString('base64')}` };
    const project = (await d.api('POST', '/v2/projects', { name: 'environ' }, auth)).body.project_id;
    const node = (await d.api('POST', `/v2/projects/${project}/nodes`, { name: 'PC1', node_type: 'vpcs' }, auth)).body;
    const started = await d.api('POST', `/v2/projects/${project}/nodes/${node.node_id}/start`, {}, auth);
    assert.equal(started.status, 200, started.text);
    const pids = processesIn(node.node_directory);
    assert.ok(pids.length >= 1, 'VPCS runs in its node directory');
    for (const pid of pids) {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
      assert.ok(environ.some((v) => v.startsWith('PATH=')), 'PATH is kept');
      assert.deepEqual(environ.filter((v) => /^EMUCTL_|PASSWORD|SECRET/.test(v)), [], `environment of ${pid}: ${environ.join(' ')}`);
      assert.ok(!environ.some((v) => v.includes('not-for-children')));
    }
    await d.api('POST', `/v2/projects/${project}/nodes/${node.node_id}/stop`, {}, auth);
  });

  it('daemons on --port 0 sharing one home never stop each other\'s VPCS; a SIGKILLed one\'s VPCS is still recovered', async () => {
    const home = join(tmp, 'shared-port-0');
    const a = await start(home);
    const project = (await a.api('POST', '/v2/projects', { name: 'shared' })).body.project_id;
    const node = (await a.api('POST', `/v2/projects/${project}/nodes`, { name: 'PC1', node_type: 'vpcs' })).body;
    const started = await a.api('POST', `/v2/projects/${project}/nodes/${node.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const pids = processesIn(node.node_directory);
    leftovers.push(...pids);
    assert.ok(pids.length >= 1, 'VPCS runs');

    const b = await start(home);
    assert.deepEqual(pids.filter((pid) => !isRunning(pid)), [], 'a second daemon starting in the same home leaves the first one\'s VPCS running');
    assert.doesNotMatch(b.log(), /stopped leftover process/);
    assert.equal(await b.stop('SIGKILL'), null);
    const b2 = await start(home);
    assert.deepEqual(pids.filter((pid) => !isRunning(pid)), [], 'nor does it when it restarts after a SIGKILL');
    assert.doesNotMatch(b2.log(), /stopped leftover process/);
    const status = await a.api('GET', `/v2/projects/${project}/nodes/${node.node_id}`);
    assert.equal(status.body.status, 'started', 'the first daemon still runs its node');

    assert.equal(await a.stop('SIGKILL'), null);
    assert.ok(pids.every((pid) => isRunning(pid)), 'VPCS outlives its SIGKILLed daemon');
    const c = await start(home);
    assert.ok(await eventually(() => pids.every((pid) => !isRunning(pid))), 'the dead daemon\'s VPCS is stopped by the next one to start');
    assert.match(c.log(), /stopped leftover process/);
    assert.ok(await canBindTcp(node.console), 'its console port is free again');
  });

  for (const kind of ['vpcs', 'qemu'] as const) {
    it(`kill -9 between spawning a ${kind} process and recording it: the restarted daemon finds it by its intent and stops it`, async () => {
      const home = join(tmp, `crash-${kind}`);
      const first = await start(home, { EMUCTL_FAILPOINTS: 'process.after-spawn' });
      const project = (await first.api('POST', '/v2/projects', { name: `crash-${kind}` })).body.project_id;
      let properties = {};
      if (kind === 'qemu') {
        const upload = await fetch(`${first.url}/v2/compute/qemu/images/vmlinuz`, { method: 'POST', body: readFileSync(guest.kernel) });
        assert.equal(upload.status, 204, await upload.text());
        properties = { kernel_image: 'vmlinuz', ram: 64, kernel_command_line: guestCmdline([]) };
      }
      const node = (await first.api('POST', `/v2/projects/${project}/nodes`, { name: 'N1', node_type: kind, properties })).body;
      assert.ok(node.node_id, JSON.stringify(node));
      await assert.rejects(first.api('POST', `/v2/projects/${project}/nodes/${node.node_id}/start`, {}), 'the daemon dies at the failpoint');
      assert.equal(await first.stop(), null, 'killed by SIGKILL');

      const orphans = processesIn(node.node_directory);
      leftovers.push(...orphans);
      assert.ok(orphans.length >= 1, `the ${kind} process outlived the daemon`);
      // VPCS is given its console port (its preloaded library turns it into a unix socket); QEMU, run in the node directory, its console socket there.
      const consoleArg = kind === 'vpcs' ? String(node.console) : 'path=console.sock,';
      assert.ok(orphans.every((pid) => readCmdline(pid)!.some((a) => a.includes(consoleArg))), `its command line names its console (${consoleArg})`);
      const files = registryFiles(home);
      assert.equal(files.length, 1, `one registry file: ${files.join(' ')}`);
      assert.match(files[0], new RegExp(`^processes-0\\.${first.pid}-\\d+\\.json$`));
      const registry = JSON.parse(readFileSync(join(home, 'run', files[0]), 'utf8'));
      assert.equal(registry.owner.pid, first.pid, 'the file names its owner');
      assert.equal(registry.processes.length, 0, 'no confirmed record');
      assert.equal(registry.intents.length, 1, 'one write-ahead intent');

      const second = await start(home);
      assert.ok(await eventually(() => orphans.every((pid) => !isRunning(pid))), 'leftover stopped');
      assert.match(second.log(), new RegExp(`stopped leftover process ${orphans.sort((a, b) => a - b)[0]}`));
      assert.ok(await canBindTcp(node.console), 'console port free for the node again');
      assert.deepEqual(registryFiles(home), [], 'the dead daemon\'s registry is removed once cleaned up');
    });
  }
});
