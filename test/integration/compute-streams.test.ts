// The controller follows a remote compute through its notification websocket (issue 8): node state
// changed on the compute reaches the controller, a killed compute turns connected: false, and after
// a restart its nodes are placed and wired again so that `node start` works without close/open.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../src/client/vpcs-console.js';
import { cliEnv, runBin } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { openWebSocket, type StreamRecorder } from '../helpers/notifications.js';
import { sleep } from '../helpers/udp.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '20600-20649', EMUCTL_CONSOLE_PORT_RANGE: '20750-20774' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '20650-20699', EMUCTL_CONSOLE_PORT_RANGE: '20775-20799' };

describe('the controller follows a remote compute through its notification stream', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-streams-'));
  let controller: TestDaemon;
  let compute: TestDaemon;
  let computeId: string;
  let projectId: string;
  let pc1: any;
  let pc2: any;
  let events: StreamRecorder;
  let project: StreamRecorder;
  const consoles: VpcsConsole[] = [];

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: CONTROLLER_ENV });
    compute = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: COMPUTE_ENV });
    events = await openWebSocket(controller.url, '/v2/notifications/ws');
  });
  after(async () => {
    for (const c of consoles) c.close();
    events?.close();
    project?.close();
    await controller?.stop();
    await compute?.stop();
    removeHome(tmp);
  });

  it('registering a compute: compute.created, then compute.updated once its stream is open; pings give its usage', async () => {
    const r = await controller.api('POST', '/v2/computes', { name: 'remote', host: '127.0.0.1', port: compute.port });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.connected, true);
    assert.equal(r.body.capabilities.version, '2.2.42');
    computeId = r.body.compute_id;
    const created = await events.next('compute.created');
    assert.equal(created.event.compute_id, computeId);
    const updated = await events.next((m) => m.action === 'compute.updated' && m.event.compute_id === computeId && m.event.connected);
    assert.equal(updated.event.password, undefined);
    for (let i = 0; i < 50; i++) {
      const c = (await controller.api('GET', `/v2/computes/${computeId}`)).body;
      if (typeof c.cpu_usage_percent === 'number') {
        assert.equal(typeof c.memory_usage_percent, 'number');
        return;
      }
      await sleep(100);
    }
    assert.fail('the compute\'s pings never gave its usage');
  });

  it('a node stopped directly on the compute reaches the controller\'s project stream and node JSON', async () => {
    projectId = await createProject(controller, 'streams');
    project = await openWebSocket(controller.url, `/v2/projects/${projectId}/notifications/ws`);
    const sw = await createNode(controller, projectId, 'SW1', 'ethernet_switch');
    pc1 = await createNode(controller, projectId, 'PC1', 'vpcs');
    pc2 = await createNode(controller, projectId, 'PC2', 'vpcs', { compute_id: computeId });
    await createLink(controller, projectId, [pc1.node_id, 0], [sw.node_id, 0]);
    await createLink(controller, projectId, [pc2.node_id, 0], [sw.node_id, 1]);
    const started = await controller.api('POST', `/v2/projects/${projectId}/nodes/${pc2.node_id}/start`, {});
    assert.equal(started.body.status, 'started', started.text);

    const direct = await compute.api('POST', `/v2/compute/projects/${projectId}/vpcs/nodes/${pc2.node_id}/stop`, {});
    assert.equal(direct.status, 204, direct.text);
    const update = await project.next((m) => m.action === 'node.updated' && m.event.node_id === pc2.node_id && m.event.status === 'stopped');
    assert.equal(update.event.compute_id, computeId, 'the controller node JSON, not the compute\'s');
    assert.equal((await controller.api('GET', `/v2/projects/${projectId}/nodes/${pc2.node_id}`)).body.status, 'stopped');
    const cli = await runBin(['--url', controller.url, 'node', 'list', '-p', 'streams', '--json'], cliEnv(join(tmp, 'cli')));
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).find((n: any) => n.name === 'PC2').status, 'stopped', 'emuctl node list shows it');
  });

  it('killing the compute daemon turns it connected: false; restarted, it comes back and node start works without close/open', async () => {
    assert.equal((await controller.api('POST', `/v2/projects/${projectId}/nodes/${pc2.node_id}/start`, {})).body.status, 'started');
    const port = compute.port;
    const killedAt = performance.now();
    await compute.stop('SIGKILL');
    const down = await events.next((m) => m.action === 'compute.updated' && m.event.compute_id === computeId && !m.event.connected);
    process.stdout.write(`# compute killed → connected: false after ${(down.at - killedAt).toFixed(0)} ms\n`);
    const record = (await controller.api('GET', `/v2/computes/${computeId}`)).body;
    assert.equal(record.connected, false);
    assert.ok(record.last_error, 'last_error says why');
    assert.equal(record.cpu_usage_percent, null);

    compute = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute', port }, env: COMPUTE_ENV });
    const restartedAt = performance.now();
    const up = await events.next((m) => m.action === 'compute.updated' && m.event.compute_id === computeId && m.event.connected);
    process.stdout.write(`# compute restarted → connected: true after ${(up.at - restartedAt).toFixed(0)} ms\n`);
    await project.next((m) => m.action === 'node.updated' && m.event.node_id === pc2.node_id && m.event.status === 'stopped');
    const onCompute = await compute.api('GET', `/v2/compute/projects/${projectId}/vpcs/nodes/${pc2.node_id}`);
    assert.equal(onCompute.status, 200, 'the controller placed PC2 on the restarted compute again');

    for (const pc of [pc1, pc2]) {
      const r = await controller.api('POST', `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {});
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'started');
      consoles.push(await connectVpcsConsole(r.body.console_host, r.body.console));
    }
    await setIp(consoles[0], '10.8.0.1/24');
    await setIp(consoles[1], '10.8.0.2/24');
    const r = await ping(consoles[0], '10.8.0.2', 3, { intervalMs: 100, waitMs: 2000 });
    assert.equal(r.received, 3, `the links to the restarted compute were wired again: sent ${r.sent}, received ${r.received}`);
  });
});

describe('a removed compute', () => {
  it('is never contacted again, even with a check in flight when it is removed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-removed-'));
    const controller = await startTestDaemon({ home, env: CONTROLLER_ENV });
    // A compute that accepts connections and never answers: its checks are always in flight.
    const held: Socket[] = [];
    let connections = 0;
    const silent = createServer((socket) => {
      connections++;
      held.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const r = await controller.api('POST', '/v2/computes', { name: 'silent', host: '127.0.0.1', port });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.connected, false);
      while (connections < 2) await sleep(50); // the retry is under way
      assert.equal((await controller.api('DELETE', `/v2/computes/${r.body.compute_id}`)).status, 204);
      for (const s of held) s.destroy();
      const before = connections;
      await sleep(10_000); // longer than the longest retry delay
      assert.equal(connections, before, 'no connection after the compute was removed');
    } finally {
      for (const s of held) s.destroy();
      silent.close();
      await controller.stop();
      removeHome(home);
    }
  });
});
