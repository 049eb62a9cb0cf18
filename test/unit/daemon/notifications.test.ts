// The notification hub and GNS3's routing of controller events, without sockets: a transport that
// keeps what it is given and flushes when told (the websocket and HTTP ones are in the integration tests).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger, type Logger } from '../../../src/daemon/logger.js';
import { COMPUTE_CHANNEL, CONTROLLER_CHANNEL, controllerChannels, idleMsOf, projectChannel, wireNotifications } from '../../../src/daemon/notifications/channels.js';
import { NotificationHub, type NotificationTransport } from '../../../src/daemon/notifications/hub.js';
import { NotificationSource } from '../../../src/daemon/notifications/notification.js';

const usage = () => ({ cpu_usage_percent: 1, memory_usage_percent: 2 });

/** A transport whose messages stay unsent until `flush()`. */
class HeldTransport implements NotificationTransport {
  sent: string[] = [];
  unflushed: (() => void)[] = [];
  closed?: string;
  send(text: string, flushed: () => void): void {
    this.sent.push(text);
    this.unflushed.push(flushed);
  }
  close(why: string): void {
    this.closed = why;
  }
  flush(): void {
    for (const f of this.unflushed.splice(0)) f();
  }
  actions(): string[] {
    return this.sent.map((t) => JSON.parse(t).action);
  }
}

describe('notification routing (GNS3 2.2)', () => {
  const p = '00000000-0000-4000-8000-000000000001';
  it('sends each controller event to its streams', () => {
    assert.deepEqual(controllerChannels({ action: 'compute.updated', event: {} }), [CONTROLLER_CHANNEL]);
    assert.deepEqual(controllerChannels({ action: 'template.created', event: {} }), [CONTROLLER_CHANNEL]);
    assert.deepEqual(controllerChannels({ action: 'log.warning', event: {} }), [CONTROLLER_CHANNEL]);
    assert.deepEqual(controllerChannels({ action: 'log.error', event: {}, project_id: p }), [projectChannel(p)]);
    assert.deepEqual(controllerChannels({ action: 'project.closed', event: {}, project_id: p }), [CONTROLLER_CHANNEL, projectChannel(p)]);
    assert.deepEqual(controllerChannels({ action: 'node.updated', event: {}, project_id: p }), [projectChannel(p)]);
    assert.deepEqual(controllerChannels({ action: 'drawing.created', event: {}, project_id: p }), [projectChannel(p)]);
    assert.equal(idleMsOf(COMPUTE_CHANNEL), 1000);
    assert.equal(idleMsOf(projectChannel(p)), 5000);
  });

  it('project streams get {action, event}; the compute stream keeps project_id', () => {
    const hub = new NotificationHub({ log: silentLogger, usage });
    const controller = new NotificationSource();
    const compute = new NotificationSource();
    const stop = wireNotifications(hub, { controller, compute });
    const project = new HeldTransport();
    const computeClient = new HeldTransport();
    hub.attach(projectChannel(p), project, { label: 'p', idleMs: 60_000 });
    hub.attach(COMPUTE_CHANNEL, computeClient, { label: 'c', idleMs: 60_000 });
    controller.publish('node.updated', { node_id: 'n' }, p);
    compute.publish('node.updated', { node_id: 'n' }, p);
    assert.deepEqual(JSON.parse(project.sent[1]), { action: 'node.updated', event: { node_id: 'n' } });
    assert.deepEqual(JSON.parse(computeClient.sent[1]), { action: 'node.updated', event: { node_id: 'n' }, project_id: p });
    stop();
    hub.close();
  });
});

describe('notification hub', () => {
  it('pings first, then every message; a detached client gets nothing more', () => {
    const hub = new NotificationHub({ log: silentLogger, usage });
    const t = new HeldTransport();
    const detach = hub.attach('x', t, { label: 'a', idleMs: 60_000 });
    assert.deepEqual(JSON.parse(t.sent[0]), { action: 'ping', event: usage() });
    hub.publish('x', { action: 'node.created', event: {} });
    hub.publish('y', { action: 'node.created', event: {} });
    detach();
    hub.publish('x', { action: 'node.deleted', event: {} });
    assert.deepEqual(t.actions(), ['ping', 'node.created']);
    assert.equal(hub.clientCount(), 0);
  });

  it('drops a client whose unsent messages exceed the bound, logs it, and keeps serving the others', () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };
    const hub = new NotificationHub({ log, usage, maxPendingMessages: 5 });
    const stuck = new HeldTransport();
    const live = new HeldTransport();
    hub.attach('x', stuck, { label: 'stuck', idleMs: 60_000 });
    hub.attach('x', live, { label: 'live', idleMs: 60_000 });
    for (let i = 0; i < 10; i++) {
      hub.publish('x', { action: 'node.updated', event: { i } });
      live.flush();
    }
    assert.equal(stuck.closed, 'overflow');
    assert.equal(stuck.sent.length, 5, 'the ping and four messages, then no more');
    assert.equal(live.sent.length, 11);
    assert.match(warnings.join('\n'), /notification client stuck dropped: 5 messages/);
    assert.equal(hub.clientCount('x'), 1);
    hub.close();
    assert.equal(live.closed, 'shutdown');
  });

  it('the byte bound drops a client too', () => {
    const hub = new NotificationHub({ log: silentLogger, usage, maxPendingBytes: 1000 });
    const t = new HeldTransport();
    hub.attach('x', t, { label: 'big', idleMs: 60_000 });
    hub.publish('x', { action: 'node.updated', event: { text: 'x'.repeat(2000) } });
    assert.equal(t.closed, 'overflow');
  });

  it('pings again when the channel stays quiet, not sooner', async () => {
    const hub = new NotificationHub({ log: silentLogger, usage });
    const t = new HeldTransport();
    const start = performance.now();
    hub.attach('x', t, { label: 'idle', idleMs: 200 });
    while (t.sent.length < 2) await new Promise((r) => setTimeout(r, 10));
    assert.ok(performance.now() - start >= 190);
    assert.deepEqual(t.actions(), ['ping', 'ping']);
    hub.close();
  });
});
