// The notification streams (issue 8) of a real daemon, read with a real websocket client
// (the `ws` package) and with plain HTTP for the long-poll routes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import { readCmdline, readProcStat } from '../../src/util/proc-info.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { basicAuthHeader, isPing, openLongPoll, openWebSocket, refusedWebSocket, type StreamRecorder } from '../helpers/notifications.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20800-20899', EMUCTL_CONSOLE_PORT_RANGE: '20900-20949' };

/** The supervised (parent) VPCS process serving a console port, child of the daemon. */
function vpcsLeader(daemonPid: number, consolePort: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const argv = readCmdline(pid);
    if (!argv || !/vpcs$/.test(argv[0] ?? '')) continue;
    const i = argv.indexOf('-p');
    if (i >= 0 && argv[i + 1] === String(consolePort) && readProcStat(pid)?.ppid === daemonPid) return pid;
  }
  return undefined;
}

describe('notification streams', () => {
  let d: TestDaemon;
  let projectId: string;
  const streams: StreamRecorder[] = [];
  const track = <T extends StreamRecorder>(s: T): T => (streams.push(s), s);

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    projectId = await createProject(d, 'events');
  });
  after(async () => {
    for (const s of streams) s.close();
    await d.stop();
    removeHome(d.home);
  });

  it('every stream, websocket or long-poll, sends a ping first', async () => {
    const routes = ['/v2/notifications/ws', `/v2/projects/${projectId}/notifications/ws`, '/v2/compute/notifications/ws'];
    for (const path of routes) {
      const ws = track(await openWebSocket(d.url, path));
      const first = await ws.next(() => true);
      assert.ok(isPing(first), `${path}: ${JSON.stringify(first)}`);
      assert.deepEqual(Object.keys(first).filter((k) => k !== 'at').sort(), ['action', 'event']);
      ws.close();
    }
    for (const path of ['/v2/notifications', `/v2/projects/${projectId}/notifications`]) {
      const poll = track(await openLongPoll(d.url, path));
      assert.equal(poll.response.status, 200);
      assert.equal(poll.response.headers.get('content-type'), 'application/json');
      assert.equal(poll.response.headers.get('transfer-encoding'), 'chunked');
      assert.equal(poll.response.headers.get('x-route'), path.replace(projectId, '{project_id}'));
      assert.ok(isPing(await poll.next(() => true)), path);
      poll.close();
    }
  });

  it('the websocket handshake carries X-Route; refusals are JSON errors', async () => {
    const ws = track(await openWebSocket(d.url, `/v2/projects/${projectId}/notifications/ws`));
    ws.close();
    const unknown = await refusedWebSocket(d.url, '/v2/projects/00000000-0000-4000-8000-000000000000/notifications/ws');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /doesn't exist/);
    assert.equal((await refusedWebSocket(d.url, '/v2/projects/nope/notifications/ws')).status, 400);
    assert.equal((await refusedWebSocket(d.url, '/v2/nothing/here')).status, 404);
    const plain = await d.api('GET', '/v2/notifications/ws');
    assert.equal(plain.status, 400);
    assert.match(plain.body.message, /websocket/);
    assert.equal((await d.api('GET', '/v2/projects/00000000-0000-4000-8000-000000000000/notifications')).status, 404);
  });

  it('node, link and capture events carry the object JSON, on the websocket and the long-poll route alike', async () => {
    const ws = track(await openWebSocket(d.url, `/v2/projects/${projectId}/notifications/ws`));
    const poll = track(await openLongPoll(d.url, `/v2/projects/${projectId}/notifications`));
    const compute = track(await openWebSocket(d.url, '/v2/compute/notifications/ws'));
    const controller = track(await openWebSocket(d.url, '/v2/notifications/ws'));
    for (const s of [ws, poll, compute, controller]) await s.next('ping');
    const p = `/v2/projects/${projectId}`;
    const expectEvent = async (action: string, body: any, id: string) => {
      const m = await ws.next((x) => x.action === action && (x.event.node_id === id || x.event.link_id === id));
      assert.deepEqual(m.event, body, action);
      return m;
    };

    const sw = await createNode(d, projectId, 'SW1', 'ethernet_switch');
    await expectEvent('node.created', sw, sw.node_id);
    const pc = await createNode(d, projectId, 'PC1', 'vpcs');
    await expectEvent('node.created', pc, pc.node_id);
    const link = await createLink(d, projectId, [pc.node_id, 0], [sw.node_id, 0]);
    await expectEvent('link.created', link, link.link_id);

    const started = await d.api('POST', `${p}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal((await expectEvent('node.updated', started.body, pc.node_id)).event.status, 'started');
    const onCompute = await compute.next((m) => m.action === 'node.updated' && m.event.node_id === pc.node_id);
    assert.equal(onCompute.project_id, projectId, 'the compute stream names the project');
    assert.equal(onCompute.event.status, 'started');
    assert.deepEqual(onCompute.event, (await d.api('GET', `/v2/compute/projects/${projectId}/vpcs/nodes/${pc.node_id}`)).body, 'the compute event is the compute GET JSON');

    const capture = await d.api('POST', `${p}/links/${link.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    assert.equal((await expectEvent('link.updated', capture.body, link.link_id)).event.capturing, true);
    const stopped = await d.api('POST', `${p}/links/${link.link_id}/stop_capture`, {});
    assert.equal((await expectEvent('link.updated', stopped.body, link.link_id)).event.capturing, false);
    const filtered = await d.api('PUT', `${p}/links/${link.link_id}`, { filters: { delay: [10] } });
    assert.deepEqual((await expectEvent('link.updated', filtered.body, link.link_id)).event.filters, { delay: [10] });
    const suspended = await d.api('PUT', `${p}/links/${link.link_id}`, { suspend: true });
    assert.equal((await expectEvent('link.updated', suspended.body, link.link_id)).event.suspend, true);

    const renamed = await d.api('PUT', `${p}/nodes/${sw.node_id}`, { name: 'SW-core' });
    assert.equal((await expectEvent('node.updated', renamed.body, sw.node_id)).event.name, 'SW-core');
    const stoppedPc = await d.api('POST', `${p}/nodes/${pc.node_id}/stop`, {});
    assert.equal((await expectEvent('node.updated', stoppedPc.body, pc.node_id)).event.status, 'stopped');
    assert.equal((await compute.next((m) => m.action === 'node.updated' && m.event.node_id === pc.node_id)).event.status, 'stopped');

    const lastLink = (await d.api('GET', `${p}/links/${link.link_id}`)).body;
    assert.equal((await d.api('DELETE', `${p}/links/${link.link_id}`)).status, 204);
    await expectEvent('link.deleted', lastLink, link.link_id);
    const lastPc = (await d.api('GET', `${p}/nodes/${pc.node_id}`)).body;
    assert.equal((await d.api('DELETE', `${p}/nodes/${pc.node_id}`)).status, 204);
    await expectEvent('node.deleted', lastPc, pc.node_id);

    const project = await d.api('PUT', p, { scene_width: 2100 });
    assert.deepEqual((await ws.next('project.updated')).event, project.body);
    assert.deepEqual((await controller.next('project.updated')).event, project.body, 'the controller stream sees projects too');
    assert.ok(!controller.actions().some((a) => a.startsWith('node.') || a.startsWith('link.')), 'node and link events stay on the project stream');

    const seen = ws.actions().filter((a) => a !== 'ping');
    await poll.next('project.updated');
    assert.deepEqual(poll.actions().filter((a) => a !== 'ping'), seen, 'the long-poll route gives the same events');
    for (const m of poll.messages) assert.deepEqual(Object.keys(m).filter((k) => k !== 'at').sort(), ['action', 'event']);
  });

  it('a VPCS that dies on its own is reported stopped, with a log.error', async () => {
    const pc = await createNode(d, projectId, 'PC-crash', 'vpcs');
    const ws = track(await openWebSocket(d.url, `/v2/projects/${projectId}/notifications/ws`));
    await ws.next('ping');
    const started = await d.api('POST', `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    await ws.next((m) => m.action === 'node.updated' && m.event.node_id === pc.node_id && m.event.status === 'started');
    const leader = vpcsLeader(d.pid, started.body.console);
    assert.ok(leader, 'the VPCS process is found');
    const killedAt = performance.now();
    process.kill(leader, 'SIGKILL');
    const update = await ws.next((m) => m.action === 'node.updated' && m.event.node_id === pc.node_id);
    assert.equal(update.event.status, 'stopped');
    const log = ws.messages.find((m) => m.action === 'log.error');
    assert.match(log?.event.message ?? '', /PC-crash/, 'GNS3 sends a log.error when VPCS stops on its own');
    assert.equal((await d.api('GET', `/v2/projects/${projectId}/nodes/${pc.node_id}`)).body.status, 'stopped');
    process.stdout.write(`# VPCS killed → node.updated stopped after ${(update.at - killedAt).toFixed(0)} ms\n`);
  });

  it('pings repeat while a stream is idle: every second on the compute stream, every 5 s elsewhere', async () => {
    const compute = track(await openWebSocket(d.url, '/v2/compute/notifications/ws'));
    const controller = track(await openWebSocket(d.url, '/v2/notifications/ws'));
    const c1 = await compute.next('ping');
    const c2 = await compute.next('ping');
    assert.ok(c2.at - c1.at >= 900, `compute pings ${c2.at - c1.at} ms apart`);
    const p1 = await controller.next('ping');
    const p2 = await controller.next('ping');
    assert.ok(p2.at - p1.at >= 4500, `controller pings ${p2.at - p1.at} ms apart`);
  });

  it('a dead client is dropped without stalling the others', async () => {
    const sw = await createNode(d, projectId, 'SW-big', 'ethernet_switch');
    const live = track(await openWebSocket(d.url, `/v2/projects/${projectId}/notifications/ws`));
    await live.next('ping');
    // A client that completes the handshake and then never reads.
    const dead = connect(d.port, '127.0.0.1');
    let deadClosed = false;
    dead.on('close', () => (deadClosed = true));
    dead.on('error', () => undefined);
    dead.write(`GET /v2/projects/${projectId}/notifications/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
      + 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    await new Promise((resolve) => dead.once('readable', resolve));

    // A label's text is always the node's name (as in GNS3): its style carries the bulk.
    const style = 'x'.repeat(200_000);
    let updates = 0;
    for (; updates < 300 && !/dropped/.test(d.log()); updates++) {
      const r = await d.api('PUT', `/v2/projects/${projectId}/nodes/${sw.node_id}`, { label: { text: 'SW-big', style, n: updates } });
      assert.equal(r.status, 200);
    }
    assert.match(d.log(), /notification client .* dropped: \d+ messages/);
    // The live client got every update, in order, while the dead one was cut off.
    for (let n = 0; n < updates; n++) await live.next((m) => m.action === 'node.updated' && m.event.label?.n === n);
    dead.resume();
    for (let i = 0; i < 100 && !deadClosed; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(deadClosed, 'the daemon closed the dead client');
    assert.equal((await d.api('GET', '/v2/version')).status, 200);
  });
});

describe('notification streams with basic auth', () => {
  let d: TestDaemon;
  const auth = basicAuthHeader('lab', 'secret');

  before(async () => {
    d = await startTestDaemon({ env: { ...ENV, EMUCTL_AUTH_USER: 'lab', EMUCTL_AUTH_PASSWORD: 'secret' } });
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('a websocket upgrade without credentials, or with wrong ones, gets 401', async () => {
    for (const path of ['/v2/notifications/ws', '/v2/compute/notifications/ws']) {
      const none = await refusedWebSocket(d.url, path);
      assert.equal(none.status, 401, path);
      assert.match(String(none.headers['www-authenticate']), /^Basic realm=/);
      assert.deepEqual(Object.keys(none.body).sort(), ['message', 'status']);
      assert.equal((await refusedWebSocket(d.url, path, basicAuthHeader('lab', 'wrong'))).status, 401);
    }
    assert.equal((await d.api('GET', '/v2/notifications')).status, 401);
  });

  it('with credentials the stream opens, and the daemon closes it (1001) when it stops', async () => {
    const ws = await openWebSocket(d.url, '/v2/notifications/ws', auth);
    assert.ok(isPing(await ws.next(() => true)));
    const poll = await openLongPoll(d.url, '/v2/notifications', auth);
    assert.ok(isPing(await poll.next(() => true)));
    assert.equal(await d.stop(), 0);
    await ws.closed();
    assert.equal(ws.closeCode, 1001);
    await poll.closed();
  });
});
