import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createDataplane, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { ConflictError, InvalidError, NotFoundError, UnavailableError } from '../../src/daemon/errors.js';
import { eth, freePort, Peer, settle, until, wire } from './helpers.js';

const BCAST = 'ff:ff:ff:ff:ff:ff';
const SRC = '02:00:00:00:00:01';
const ports2 = [{ port: 0, type: 'access' as const, vlan: 1 }, { port: 1, type: 'access' as const, vlan: 1 }];

async function bindable(port: number, host = '127.0.0.1'): Promise<boolean> {
  const s = dgram.createSocket('udp4');
  try {
    s.bind(port, host);
    await Promise.race([once(s, 'listening'), once(s, 'error').then(([e]) => Promise.reject(e))]);
    return true;
  } catch {
    return false;
  } finally {
    s.close();
  }
}

describe('dataplane NIOs', () => {
  let dp: DataplaneApi;
  const peers: Peer[] = [];
  const keep = <T extends Peer>(p: T): T => {
    peers.push(p);
    return p;
  };

  before(async () => {
    dp = await createDataplane();
  });
  after(async () => {
    for (const p of peers) p.close();
    await dp.close();
  });

  it('removeNio closes the socket at once: the lport can be bound again', async () => {
    await dp.createNode('rm', 'switch', ports2);
    const pa = keep(await wire(dp, 'rm', 0));
    assert.equal(await bindable(pa.lport), false, 'the NIO holds its lport');
    await dp.removeNio('rm', 0);
    assert.equal(await bindable(pa.lport), true, 'lport free as soon as removeNio resolved');
    await assert.rejects(dp.removeNio('rm', 0), NotFoundError);
    // and the port takes a new NIO on the same lport
    const peer = keep(await Peer.open());
    await dp.addNio('rm', 0, { bindHost: '127.0.0.1', lport: pa.lport, rhost: '127.0.0.1', rport: peer.port });
    await dp.deleteNode('rm');
    assert.equal(await bindable(pa.lport), true, 'deleteNode frees every lport');
  });

  it('reports a port that cannot be bound as a ConflictError naming it', async () => {
    await dp.createNode('busy', 'switch', ports2);
    const squatter = keep(await Peer.open());
    const err = await dp.addNio('busy', 0, { bindHost: '127.0.0.1', lport: squatter.port, rhost: '127.0.0.1', rport: 9 })
      .then(() => null, (e: Error) => e);
    assert.ok(err instanceof ConflictError, `got ${err}`);
    assert.match(err.message, new RegExp(`\\b${squatter.port}\\b`));
    assert.match(err.message, /EADDRINUSE/);
    // the port is still usable afterwards
    keep(await wire(dp, 'busy', 0));
    await assert.rejects(wire(dp, 'busy', 0), (e: Error) => e instanceof ConflictError && /already has a NIO/.test(e.message));
  });

  it('rejects unknown nodes and ports, duplicate nodes and bad port configs', async () => {
    await assert.rejects(dp.stats('nope'), NotFoundError);
    await dp.createNode('cfg', 'switch', ports2);
    await assert.rejects(dp.createNode('cfg', 'switch', ports2), ConflictError);
    await assert.rejects(dp.addNio('cfg', 7, { bindHost: '127.0.0.1', lport: await freePort(), rhost: '127.0.0.1', rport: 9 }), NotFoundError);
    await assert.rejects(dp.addNio('cfg', 0, { bindHost: '127.0.0.1', lport: 0, rhost: '127.0.0.1', rport: 9 }), InvalidError);
    await assert.rejects(dp.addNio('cfg', 0, { bindHost: '127.0.0.1', lport: await freePort(), rhost: 'no-such-host.invalid', rport: 9 }), InvalidError);
    await assert.rejects(dp.createNode('v', 'switch', [{ port: 0, type: 'access', vlan: 0 }]), InvalidError);
    await assert.rejects(dp.createNode('v', 'switch', [{ port: 0, type: 'qinq', vlan: 5, ethertype: 0x1234 }]), InvalidError);
    await assert.rejects(dp.createNode('v', 'switch', [{ port: 0, type: 'trunk' as 'dot1q', vlan: 5 }]), InvalidError);
    await assert.rejects(dp.createNode('v', 'switch', [...ports2, ports2[0]]), InvalidError);
    await assert.rejects(dp.updateNio('cfg', 0, { suspend: true }), NotFoundError);
    await assert.rejects(dp.stopCapture('cfg', 0), NotFoundError);
    assert.equal(await dp.captureInfo('cfg', 0), null);
  });

  it('counts send errors (nobody listening yet) without stopping', async () => {
    await dp.createNode('refused', 'switch', [...ports2, { port: 2, type: 'access', vlan: 1 }]);
    const pa = keep(await wire(dp, 'refused', 0));
    const pb = keep(await wire(dp, 'refused', 1));
    await dp.addNio('refused', 2, { bindHost: '127.0.0.1', lport: await freePort(), rhost: '127.0.0.1', rport: await freePort() });
    for (let i = 0; i < 20; i++) {
      pa.send(eth(BCAST, SRC, 0x0806));
      await settle(5);
    }
    await pb.waitFor(20);
    await until(async () => (await dp.stats('refused'))[2].errors > 0, 2000, 'errors counted on the dead end');
  });

  it('accepts frames from rhost:rport only, by name or IPv6 too', async () => {
    await dp.createNode('strangers', 'switch', ports2);
    const pa = keep(await Peer.open());
    const lport = await freePort();
    await dp.addNio('strangers', 0, { bindHost: '127.0.0.1', lport, rhost: 'localhost', rport: pa.port });
    await pa.connect(lport);
    const pb6 = keep(await Peer.open('udp6'));
    const lport6 = await freePort();
    await dp.addNio('strangers', 1, { bindHost: '::1', lport: lport6, rhost: '::1', rport: pb6.port });
    await pb6.connect(lport6, '::1');

    const stranger = keep(await Peer.open());
    await stranger.connect(lport);
    stranger.send(eth(BCAST, '02:00:00:00:00:66', 0x0806));
    await settle();
    assert.equal(pb6.frames.length, 0, 'a stranger is not heard');
    const f = eth(BCAST, SRC, 0x0806);
    pa.send(f);
    assert.deepEqual(await pb6.waitFor(1), [f], 'IPv4 by name in, IPv6 out');
    pb6.send(f);
    assert.deepEqual(await pa.waitFor(1), [f]);
  });
});

describe('dataplane worker lifecycle', () => {
  it('answers 503 to pending and later calls while a crashed worker restarts', async () => {
    const logged: string[] = [];
    const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
    const dp = await createDataplane({ workerUrl: new URL('./fixtures/crashing-worker.js', import.meta.url), log });
    try {
      await assert.rejects(dp.stats('x'), (e: Error) => e instanceof UnavailableError && /worker crashed \(boom: simulated dataplane bug\)/.test(e.message));
      await assert.rejects(dp.macTable('x'), UnavailableError);
      assert.match(logged.join('\n'), /dataplane worker died: boom: simulated dataplane bug; restarting/);
    } finally {
      await dp.close();
    }
  });

  it('rejects calls after close, and close twice is fine', async () => {
    const dp = await createDataplane();
    await dp.createNode('n', 'hub', [{ port: 0, type: 'access', vlan: 1 }]);
    await dp.close();
    await dp.close();
    await assert.rejects(dp.stats('n'), /closed/);
  });
});
