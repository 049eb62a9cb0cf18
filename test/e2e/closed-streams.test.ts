// A daemon whose stderr and stdout lead nowhere (the reader died: a closed pipe) keeps serving, and
// SIGTERM still stops it gracefully, VPCS included (issue 11). Before, the first log line written to
// the broken pipe killed it with EPIPE, leaving its VPCS running. The detached daemon (logging to a file)
// stops its VPCS the same way.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isRunning } from '../../src/util/proc-info.js';
import { cliEnv, runBin, tempHome } from '../cli/helpers/cli.js';
import { callApi, removeHome, startTestDaemon, type ApiAnswer } from '../helpers/daemon.js';
import { eventually, processesIn } from '../kinds/vpcs/vpcs-helpers.js';

const PORTS = { EMUCTL_UDP_PORT_RANGE: '23000-23049', EMUCTL_CONSOLE_PORT_RANGE: '29000-29019' };
const MISSING = '/v2/projects/00000000-0000-4000-8000-000000000000';

/** Creates a project with a started VPCS through `api`; returns the VPCS's pids. */
async function startedVpcs(api: (method: string, path: string, body?: unknown) => Promise<ApiAnswer>): Promise<number[]> {
  const project = await api('POST', '/v2/projects', { name: 'streams' });
  assert.equal(project.status, 201, project.text);
  const node = await api('POST', `/v2/projects/${project.body.project_id}/nodes`, { name: 'PC1', node_type: 'vpcs' });
  assert.equal(node.status, 201, node.text);
  const started = await api('POST', `/v2/projects/${project.body.project_id}/nodes/${node.body.node_id}/start`, {});
  assert.equal(started.status, 200, started.text);
  const pids = processesIn(node.body.node_directory);
  assert.ok(pids.length >= 1, 'VPCS runs in its node directory');
  return pids;
}

describe('a daemon survives a closed stderr and stdout', () => {
  const leftovers: number[] = [];
  const homes: string[] = [];
  after(() => {
    for (const pid of leftovers) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    homes.forEach(removeHome);
  });

  it('logging to closed pipes does not end it; SIGTERM stops it gracefully and its VPCS with it', async () => {
    const d = await startTestDaemon({ flags: { debug: true }, env: PORTS });
    homes.push(d.home);
    leftovers.push(d.pid);
    const vpcs = await startedVpcs(d.api);
    leftovers.push(...vpcs);
    const pidFile = join(d.home, 'run', `daemon-${d.port}.pid`);
    assert.ok(existsSync(pidFile));

    d.child.stdout!.destroy();
    d.child.stderr!.destroy();
    // Each 404 is logged (--debug), into pipes nobody reads any more.
    for (let i = 0; i < 20; i++) assert.equal((await d.api('GET', MISSING)).status, 404);
    assert.equal((await d.api('GET', '/v2/version')).status, 200, 'the daemon still serves');

    assert.equal(await d.stop('SIGTERM'), 0, 'the daemon ended through its graceful stop');
    assert.equal(existsSync(pidFile), false, 'the graceful stop removed the pid file');
    assert.ok(await eventually(() => vpcs.every((pid) => !isRunning(pid))), `VPCS ${vpcs.filter(isRunning)} still running`);
  });

  it('emuctl daemon start (detached, logging to its file) stops its VPCS on SIGTERM too', async () => {
    const home = tempHome();
    homes.push(home);
    const env = cliEnv(home, PORTS);
    const start = await runBin(['daemon', 'start', '--port', '0', '--json'], env);
    assert.equal(start.code, 0, start.stderr);
    const info = JSON.parse(start.stdout);
    leftovers.push(info.pid);
    const vpcs = await startedVpcs((method, path, body) => callApi(info.url, method, path, body));
    leftovers.push(...vpcs);

    process.kill(info.pid, 'SIGTERM');
    assert.ok(await eventually(() => !isRunning(info.pid), 15_000), 'the daemon ended');
    assert.equal(existsSync(info.pidFile), false, 'the graceful stop removed the pid file');
    assert.match(readFileSync(join(home, 'log', 'daemon-0.log'), 'utf8'), /received SIGTERM[\s\S]*INFO  stopped/);
    assert.ok(await eventually(() => vpcs.every((pid) => !isRunning(pid))), `VPCS ${vpcs.filter(isRunning)} still running`);
  });
});
