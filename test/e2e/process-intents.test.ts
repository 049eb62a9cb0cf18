// Emulator processes are never untracked (issue 11): a daemon killed between spawning a VPCS or
// QEMU process and recording it leaves a write-ahead intent by which its successor finds and stops
// the process; and children get a minimal environment, never the daemon's secrets.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isRunning, listProcesses, readCmdline, readCwd } from '../../src/util/proc-info.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { guestCmdline, testGuest, type TestGuest } from '../helpers/qemu-guest.js';
import { canBindTcp, eventually } from '../vpcs/vpcs-helpers.js';

const PORTS = { EMUCTL_UDP_PORT_RANGE: '33800-33899', EMUCTL_CONSOLE_PORT_RANGE: '27500-27549', EMUCTL_QEMU_ACCEL: 'tcg' };

/** Running processes started in `dir` (a node directory). */
function processesIn(dir: string): number[] {
  return listProcesses().filter((p) => isRunning(p.pid) && readCwd(p.pid) === dir).map((p) => p.pid);
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
      assert.ok(orphans.every((pid) => readCmdline(pid)!.some((a) => a.includes(String(node.console)))), 'its command line names its console port');
      const registry = JSON.parse(readFileSync(join(home, 'run', 'processes-0.json'), 'utf8'));
      assert.equal(registry.processes.length, 0, 'no confirmed record');
      assert.equal(registry.intents.length, 1, 'one write-ahead intent');

      const second = await start(home);
      assert.ok(await eventually(() => orphans.every((pid) => !isRunning(pid))), 'leftover stopped');
      assert.match(second.log(), new RegExp(`stopped leftover process ${orphans.sort((a, b) => a - b)[0]}`));
      assert.ok(await canBindTcp(node.console), 'console port free for the node again');
      const registryAfter = JSON.parse(readFileSync(join(home, 'run', 'processes-0.json'), 'utf8'));
      assert.deepEqual([registryAfter.processes.length, registryAfter.intents ?? []], [0, []]);
    });
  }
});
