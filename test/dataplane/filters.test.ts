import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDataplane, type DataplaneApi, type LinkFilters } from '../../src/daemon/dataplane/index.js';
import { ConflictError, InvalidError } from '../../src/daemon/errors.js';
import { arpRequest, eth, freePort, icmpEcho, Peer, settle, until, wire } from './helpers.js';

const A = '02:00:00:00:00:0a';
const B = '02:00:00:00:00:0b';
const BCAST = 'ff:ff:ff:ff:ff:ff';

/** A broadcast frame carrying sequence number `i` (bytes 14-17) and `size` bytes in all. */
function numbered(i: number, size = 64): Buffer {
  const f = eth(BCAST, A, 0x88b5, Buffer.alloc(size - 14));
  f.writeUInt32BE(i, 14);
  return f;
}
const seqOf = (f: Buffer) => f.readUInt32BE(14);

describe('dataplane filters', () => {
  let dp: DataplaneApi;
  const peers: Peer[] = [];
  let n = 0;

  /** A 3-port switch; the filters sit on port 0's NIO, so they act on frames entering from peer a. */
  async function lab(filters?: LinkFilters) {
    const id = `f${++n}`;
    await dp.createNode(id, 'switch', [0, 1, 2].map((port) => ({ port, type: 'access' as const, vlan: 1 })));
    const a = await wire(dp, id, 0, { filters });
    const b = await wire(dp, id, 1);
    const c = await wire(dp, id, 2);
    peers.push(a, b, c);
    return { id, a, b, c };
  }

  /** Sends `count` numbered frames from `from` in bursts the peers' buffers absorb, then waits until the switch has taken them all. */
  async function sendNumbered(id: string, from: Peer, count: number, size = 64) {
    const base = (await dp.stats(id))[0].framesIn;
    for (let i = 0; i < count; i++) {
      from.send(numbered(i, size));
      if (i % 100 === 99) await sleep(5);
    }
    await until(async () => (await dp.stats(id))[0].framesIn === base + count, 5000, `${count} frames into port 0`);
  }

  /** Waits until peer `to` (on port 1) holds every frame port 1 sent out. */
  async function delivered(id: string, to: Peer) {
    await until(async () => to.frames.length === (await dp.stats(id))[1].framesOut, 5000, 'delivery');
    return to.frames;
  }

  before(async () => {
    dp = await createDataplane();
  });
  after(async () => {
    for (const p of peers) p.close();
    await dp.close();
  });

  it('frequency_drop -1 drops everything, N drops every Nth, in one direction only', async () => {
    const { id, a, b } = await lab({ frequency_drop: [-1] });
    await sendNumbered(id, a, 10);
    await settle();
    assert.equal(b.frames.length, 0);
    assert.equal((await dp.stats(id))[0].drops, 10);
    b.send(eth(BCAST, B, 0x0806));
    await a.waitFor(1); // frames leaving through port 0 are not filtered

    await dp.updateNio(id, 0, { filters: { frequency_drop: [3] } });
    await dp.updateNio(id, 1, {}); // no change
    await sendNumbered(id, a, 30);
    const got = (await delivered(id, b)).map(seqOf);
    assert.deepEqual(got, [...Array(30).keys()].filter((i) => i % 3 !== 2), 'every 3rd frame dropped');
  });

  it('packet_loss 50 loses about half', async () => {
    const { id, a, b } = await lab({ packet_loss: [50] });
    await sendNumbered(id, a, 1000);
    const got = (await delivered(id, b)).length;
    assert.ok(got > 380 && got < 620, `delivered ${got} of 1000`);
    assert.equal((await dp.stats(id))[0].drops, 1000 - got);
  });

  it('delay holds frames for the delay without blocking other traffic', async () => {
    const { id, a, b, c } = await lab({ delay: [100] });
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) a.send(numbered(i));
    c.send(eth(BCAST, '02:00:00:00:00:0c', 0x0806));
    const [first] = await b.waitFor(1);
    assert.equal(first.readUInt16BE(12), 0x0806, 'the undelayed frame from c passes the delayed ones');
    await b.waitFor(2, 5000);
    const tDelayed = performance.now() - t0;
    assert.ok(tDelayed >= 99, `delayed frame arrived after ${tDelayed.toFixed(1)} ms`);
    // A sleeping implementation would need 200 x 100 ms; scheduled frames all leave ~100 ms after they came.
    const all = await b.waitFor(201, 15_000);
    assert.deepEqual(all.slice(1).map(seqOf), [...Array(200).keys()], 'order kept without jitter');
    assert.equal((await dp.stats(id))[0].drops, 0);
  });

  it('delay with jitter stays within latency ± jitter', async () => {
    const { a, b } = await lab({ delay: [60, 20] });
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) a.send(numbered(i));
    await b.waitFor(1);
    assert.ok(performance.now() - t0 >= 39, 'no frame leaves before latency - jitter');
    await b.waitFor(20, 5000);
  });

  it('corrupt flips one byte past the Ethernet header', async () => {
    const { id, a, b } = await lab({ corrupt: [100] });
    const sent = [...Array(20).keys()].map((i) => numbered(i, 100));
    for (const f of sent) a.send(f);
    const got = await b.waitFor(20);
    for (const [i, f] of got.entries()) {
      const diff = [...f.keys()].filter((k) => f[k] !== sent[i][k]);
      assert.equal(diff.length, 1, `frame ${i} differs in exactly one byte`);
      assert.ok(diff[0] >= 14, 'the Ethernet header is left intact');
    }
    assert.equal((await dp.stats(id))[0].drops, 0);
  });

  it('bpf drops frames matching any expression: icmp but not arp', async () => {
    const { id, a, b } = await lab({ bpf: ['icmp'] });
    const ping = icmpEcho(B, A, [10, 0, 0, 1], [10, 0, 0, 2]);
    const arp = arpRequest(A, [10, 0, 0, 1], [10, 0, 0, 2]);
    a.send(ping);
    a.send(arp);
    a.send(ping);
    assert.deepEqual(await b.waitFor(1), [arp]);
    await settle();
    assert.equal(b.frames.length, 1);
    assert.equal((await dp.stats(id))[0].drops, 2);
    await dp.updateNio(id, 0, { filters: { bpf: ['udp\narp'] } });
    a.send(arp);
    a.send(ping);
    assert.deepEqual(await b.waitFor(2), [arp, ping]);
    await dp.updateNio(id, 0, { filters: {} });
    a.send(arp);
    await b.waitFor(3);
  });

  it('a bad bpf expression is an InvalidError with libpcap\'s message, and binds nothing', async () => {
    await dp.createNode('badbpf', 'switch', [{ port: 0, type: 'access', vlan: 1 }]);
    const lport = await freePort();
    await assert.rejects(
      dp.addNio('badbpf', 0, { bindHost: '127.0.0.1', lport, rhost: '127.0.0.1', rport: 9 }, { filters: { bpf: ['arp', 'icmp and and'] } }),
      (e: Error) => e instanceof InvalidError && /can't parse filter expression: syntax error/.test(e.message),
    );
    const peer = await Peer.open();
    peers.push(peer);
    await dp.addNio('badbpf', 0, { bindHost: '127.0.0.1', lport, rhost: '127.0.0.1', rport: peer.port });
    await assert.rejects(dp.updateNio('badbpf', 0, { filters: { bpf: ['nonsense!'] } }), InvalidError);
  });

  it('bpf without tcpdump says how to install it', async () => {
    const other = await createDataplane({ tcpdump: '/nonexistent/tcpdump' });
    try {
      await other.createNode('x', 'hub', [{ port: 0, type: 'access', vlan: 1 }]);
      await assert.rejects(
        other.addNio('x', 0, { bindHost: '127.0.0.1', lport: await freePort(), rhost: '127.0.0.1', rport: 9 }, { filters: { bpf: ['icmp'] } }),
        (e: Error) => e instanceof ConflictError && /apt-get install tcpdump/.test(e.message),
      );
    } finally {
      await other.close();
    }
  });

  it('rate shapes to the bandwidth and drops beyond its queue', async () => {
    // 4000 kbit/s = 500 bytes/ms: 50 frames of 1000 bytes need ~100 ms (less the initial burst).
    const { id, a, b } = await lab({ rate: [4000] });
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) a.send(numbered(i, 1000));
    await b.waitFor(50, 3000);
    const took = performance.now() - t0;
    assert.ok(took >= 80, `50 kB at 500 B/ms took ${took.toFixed(1)} ms`);
    assert.deepEqual(b.frames.map(seqOf), [...Array(50).keys()]);
    await sendNumbered(id, a, 400, 1000); // 400 kB at once: more than the 64 KiB queue
    // every frame in is either dropped or, once the queue drained, out
    await until(async () => {
      const [s0, s1] = await dp.stats(id);
      return s0.framesIn === s0.drops + s1.framesOut;
    }, 5000, 'the shaper queue to drain');
    const got = (await delivered(id, b)).length - 50;
    const stats = await dp.stats(id);
    assert.ok(got < 400 && got > 50, `delivered ${got} of 400`);
    assert.equal(stats[0].drops, 400 - got);
  });

  it('duplicate 100 sends every frame twice, 50 about half of them', async () => {
    const { id, a, b } = await lab({ duplicate: [100] });
    for (let i = 0; i < 10; i++) a.send(numbered(i));
    const got = await b.waitFor(20);
    assert.deepEqual(got.map(seqOf), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9]);
    await dp.updateNio(id, 0, { filters: { duplicate: [50] } });
    await sendNumbered(id, a, 400);
    const total = (await delivered(id, b)).length - 20;
    assert.ok(total > 520 && total < 680, `${total} frames out for 400 in`);
  });

  // Ranges and names are checked once, where filters enter the daemon (validateFilters: test/unit/daemon/dataplane/filters/catalog.test.ts).
  it('takes filters that are off (0 or empty) as off', async () => {
    await dp.createNode('ranges', 'hub', [{ port: 0, type: 'access', vlan: 1 }]);
    const tunnel = { bindHost: '127.0.0.1', lport: await freePort(), rhost: '127.0.0.1', rport: 9 };
    await dp.addNio('ranges', 0, tunnel, { filters: { packet_loss: [0], delay: [0, 10], bpf: [''], frequency_drop: [] } });
  });
});
