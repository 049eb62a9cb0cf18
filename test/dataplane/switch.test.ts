import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDataplane, type DataplaneApi, type SwitchPortConfig } from '../../src/daemon/dataplane/index.js';
import { eth, Peer, settle, tagged, tagOf, wire } from './helpers.js';

const A = '02:00:00:00:00:0a';
const B = '02:00:00:00:00:0b';
const C = '02:00:00:00:00:0c';
const BCAST = 'ff:ff:ff:ff:ff:ff';

function access(port: number, vlan = 1): SwitchPortConfig {
  return { port, type: 'access', vlan };
}

describe('dataplane switch', () => {
  let dp: DataplaneApi;
  const peers: Peer[] = [];
  let seq = 0;

  /** A new switch with the given ports, each wired to a fresh peer. */
  async function lab(ports: SwitchPortConfig[], opts?: { macAgeingSeconds?: number; kind?: 'switch' | 'hub' }) {
    const id = `node-${++seq}`;
    await dp.createNode(id, opts?.kind ?? 'switch', ports, opts);
    const wired: Peer[] = [];
    for (const p of ports) wired.push(await wire(dp, id, p.port));
    peers.push(...wired);
    return { id, peers: wired };
  }

  before(async () => {
    dp = await createDataplane();
  });
  after(async () => {
    for (const p of peers) p.close();
    await dp.close();
  });

  it('floods unknown unicast, then sends to the learned port only', async () => {
    const { id, peers: [pa, pb, pc] } = await lab([access(0), access(1), access(2)]);
    const toB = eth(B, A, 0x88b5);
    pa.send(toB);
    assert.deepEqual(await pb.waitFor(1), [toB]);
    assert.deepEqual(await pc.waitFor(1), [toB], 'unknown unicast is flooded');
    pb.clear();
    pc.clear();

    const toA = eth(A, B, 0x88b5);
    pb.send(toA);
    assert.deepEqual(await pa.waitFor(1), [toA]);
    const toB2 = eth(B, A, 0x88b6);
    pa.send(toB2);
    assert.deepEqual(await pb.waitFor(1), [toB2]);
    await settle();
    assert.equal(pc.frames.length, 0, 'learned unicast must not reach other ports');

    const table = await dp.macTable(id);
    assert.deepEqual(table.map(({ mac, vlan, port }) => ({ mac, vlan, port })), [
      { mac: A, vlan: 1, port: 0 },
      { mac: B, vlan: 1, port: 1 },
    ]);
    assert.ok(table.every((e) => e.age >= 0 && e.age < 5));
  });

  it('floods broadcast and multicast but never back out of the ingress port', async () => {
    const { peers: [pa, pb, pc] } = await lab([access(0), access(1), access(2)]);
    const bcast = eth(BCAST, A, 0x0806);
    const mcast = eth('01:00:5e:00:00:01', A, 0x0800);
    pa.send(bcast);
    pa.send(mcast);
    assert.deepEqual(await pb.waitFor(2), [bcast, mcast]);
    assert.deepEqual(await pc.waitFor(2), [bcast, mcast]);
    // A unicast to a MAC learned on the ingress port itself goes nowhere.
    pa.send(eth(A, '02:00:00:00:00:aa', 0x88b5));
    await settle();
    assert.equal(pa.frames.length, 0, 'nothing is reflected to the ingress port');
    assert.equal(pb.frames.length, 2);
  });

  it('learns thousands of MACs in several VLANs, and forgets exactly those of a port whose NIO goes', async () => {
    const { id, peers: [pa, pb, pc] } = await lab([{ port: 0, type: 'dot1q', vlan: 1 }, { port: 1, type: 'dot1q', vlan: 1 }, access(2)]);
    const macOf = (i: number) => `02:00:00:${((i >> 16) & 0xff).toString(16).padStart(2, '0')}:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`;
    const perPort = 1500;
    for (let i = 0; i < perPort; i++) {
      pa.send(tagged(eth(BCAST, macOf(i), 0x88b5), 10 + (i % 3)));
      pb.send(tagged(eth(BCAST, macOf(100_000 + i), 0x88b5), 10 + (i % 3)));
      if (i % 100 === 99) await settle(10);
    }
    pc.send(eth(BCAST, C, 0x88b5));
    await pa.waitFor(perPort + 1, 5000);
    const table = await dp.macTable(id);
    assert.equal(table.length, 2 * perPort + 1, 'every source learned once');
    assert.equal(table.filter((e) => e.port === 0).length, perPort);
    assert.deepEqual([...new Set(table.filter((e) => e.port !== 2).map((e) => e.vlan))].sort(), [10, 11, 12]);
    const sorted = [...table].sort((x, y) => x.vlan - y.vlan || (x.mac < y.mac ? -1 : x.mac > y.mac ? 1 : 0));
    assert.deepEqual(table, sorted, 'listed by VLAN, then MAC');

    await dp.removeNio(id, 0);
    const after = await dp.macTable(id);
    assert.equal(after.length, perPort + 1, 'the removed port\'s entries are gone, the others kept');
    assert.ok(after.every((e) => e.port !== 0));
    assert.deepEqual(after.filter((e) => e.port === 1).map((e) => e.mac).sort(), Array.from({ length: perPort }, (_, i) => macOf(100_000 + i)).sort());
  });

  it('ages MAC entries out', async () => {
    const { id, peers: [pa, pb, pc] } = await lab([access(0), access(1), access(2)], { macAgeingSeconds: 0.5 });
    pa.send(eth(BCAST, A, 0x0806));
    await pb.waitFor(1);
    await pc.waitFor(1);
    pb.clear();
    pc.clear();
    pb.send(eth(A, B, 0x88b5));
    await pa.waitFor(1);
    await settle(50);
    assert.equal(pc.frames.length, 0, 'A is known: unicast only');
    await settle(600);
    assert.ok(!(await dp.macTable(id)).some((e) => e.mac === A), 'A aged out of the table');
    pb.send(eth(A, B, 0x88b5));
    await pc.waitFor(1); // flooded again
  });

  it('isolates access VLANs', async () => {
    const { peers: [p10a, p10b, p20] } = await lab([access(0, 10), access(1, 10), access(2, 20)]);
    const bcast = eth(BCAST, A, 0x0806);
    p10a.send(bcast);
    assert.deepEqual(await p10b.waitFor(1), [bcast]);
    p20.send(eth(BCAST, C, 0x0806));
    p20.send(eth(A, C, 0x88b5)); // A is learned, but in VLAN 10
    await settle();
    assert.equal(p20.frames.length, 0);
    assert.equal(p10a.frames.length, 0);
    assert.equal(p10b.frames.length, 1);
  });

  it('tags and untags on a dot1q trunk with a native VLAN', async () => {
    const { peers: [p10, p20, trunk, trunk2] } = await lab([
      access(0, 10), access(1, 20), { port: 2, type: 'dot1q', vlan: 10 }, { port: 3, type: 'dot1q', vlan: 1 },
    ]);
    const f10 = eth(BCAST, A, 0x0806);
    p10.send(f10);
    assert.deepEqual(await trunk.waitFor(1), [f10], 'native VLAN leaves untagged');
    assert.deepEqual(await trunk2.waitFor(1), [tagged(f10, 10)], 'VLAN 10 is tagged on a trunk whose native VLAN is 1');
    const f20 = eth(BCAST, B, 0x0806);
    p20.send(f20);
    assert.deepEqual((await trunk.waitFor(2))[1], tagged(f20, 20));
    assert.deepEqual((await trunk2.waitFor(2))[1], tagged(f20, 20));

    const fromTrunk = eth(BCAST, C, 0x0800);
    trunk.send(tagged(fromTrunk, 20));
    assert.deepEqual(await p20.waitFor(1), [fromTrunk], 'tag removed toward an access port');
    assert.deepEqual((await trunk2.waitFor(3))[2], tagged(fromTrunk, 20), 'trunk to trunk keeps the tag');
    trunk.send(fromTrunk);
    assert.deepEqual(await p10.waitFor(1), [fromTrunk], 'untagged on the trunk is the native VLAN');
    trunk.send(tagged(fromTrunk, 10, 0x9100));
    assert.deepEqual(await p10.waitFor(2), [fromTrunk, fromTrunk], 'an explicit native tag (any of the 4 TPIDs) is removed too');
    await settle();
    assert.equal(p20.frames.length, 1);
  });

  it('pushes and pops the outer tag on qinq ports', async () => {
    const { peers: [cust, provider, cust200] } = await lab([
      { port: 0, type: 'qinq', vlan: 100, ethertype: 0x88a8 },
      { port: 1, type: 'dot1q', vlan: 1 },
      { port: 2, type: 'qinq', vlan: 200 },
    ]);
    const inner = tagged(eth(BCAST, A, 0x0806), 5);
    cust.send(inner);
    const [out] = await provider.waitFor(1);
    assert.deepEqual(tagOf(out), { tpid: 0x88a8, vid: 100 }, 'outer tag with the port ethertype');
    assert.deepEqual(out, tagged(inner, 100, 0x88a8), 'the customer frame, its tag included, is carried whole');
    const untaggedCustomer = eth(BCAST, A, 0x0800);
    cust.send(untaggedCustomer);
    assert.deepEqual((await provider.waitFor(2))[1], tagged(untaggedCustomer, 100, 0x88a8));

    provider.send(tagged(inner, 100, 0x88a8));
    assert.deepEqual(await cust.waitFor(1), [inner], 'outer tag popped toward the customer');
    provider.send(tagged(inner, 100));
    assert.deepEqual(await cust.waitFor(2), [inner, inner]);
    cust200.send(untaggedCustomer);
    assert.deepEqual((await provider.waitFor(3))[2], tagged(untaggedCustomer, 200), 'default outer ethertype 0x8100');
    await settle();
    assert.equal(cust200.frames.length, 0, 'other service VLANs stay apart');
    assert.equal(cust.frames.length, 2);
  });

  it('re-applies VLAN settings to live ports', async () => {
    const { id, peers: [pa, pb] } = await lab([access(0), access(1)]);
    pa.send(eth(BCAST, A, 0x0806));
    await pb.waitFor(1);
    await dp.updatePorts(id, [access(0), access(1, 2)]);
    pa.send(eth(BCAST, A, 0x0806));
    await settle();
    assert.equal(pb.frames.length, 1, 'port 1 moved to VLAN 2');
    await dp.updatePorts(id, [access(0, 2), access(1, 2)]);
    pa.send(eth(BCAST, A, 0x0806));
    await pb.waitFor(2);
  });

  it('hub floods every frame to every other port', async () => {
    const { id, peers: [pa, pb, pc] } = await lab([access(0), access(1), access(2)], { kind: 'hub' });
    const f1 = eth(B, A, 0x88b5);
    pa.send(f1);
    assert.deepEqual(await pb.waitFor(1), [f1]);
    assert.deepEqual(await pc.waitFor(1), [f1]);
    const f2 = tagged(eth(A, B, 0x88b5), 42);
    pb.send(f2);
    assert.deepEqual(await pa.waitFor(1), [f2], 'frames pass unchanged');
    assert.deepEqual(await pc.waitFor(2), [f1, f2], 'no learning: still flooded');
    await settle();
    assert.equal(pb.frames.length, 1);
    assert.deepEqual(await dp.macTable(id), []);
  });

  it('drops and counts runts; counts frames and bytes both ways', async () => {
    const { id, peers: [pa, pb] } = await lab([access(0), access(1)]);
    pa.send(Buffer.alloc(13, 0xff));
    const f = eth(BCAST, A, 0x0806);
    pa.send(f);
    await pb.waitFor(1);
    await settle(50);
    assert.equal(pb.frames.length, 1, 'the runt went nowhere');
    const [s0, s1] = await dp.stats(id);
    assert.deepEqual(s0, { port: 0, framesIn: 2, bytesIn: 13 + f.length, framesOut: 0, bytesOut: 0, drops: 1, errors: 0 });
    assert.deepEqual(s1, { port: 1, framesIn: 0, bytesIn: 0, framesOut: 1, bytesOut: f.length, drops: 0, errors: 0 });
  });

  it('drops everything while the node or the NIO is suspended', async () => {
    const { id, peers: [pa, pb] } = await lab([access(0), access(1)]);
    await dp.setNodeSuspended(id, true);
    pa.send(eth(BCAST, A, 0x0806));
    await settle();
    assert.equal(pb.frames.length, 0, 'node suspended');
    await dp.setNodeSuspended(id, false);
    pa.send(eth(BCAST, A, 0x0806));
    await pb.waitFor(1);

    await dp.updateNio(id, 1, { suspend: true });
    pa.send(eth(BCAST, A, 0x0806)); // toward the suspended port
    pb.send(eth(BCAST, B, 0x0806)); // from it
    await settle();
    assert.equal(pb.frames.length, 1);
    assert.equal(pa.frames.length, 0);
    await dp.updateNio(id, 1, { suspend: false });
    pb.send(eth(BCAST, B, 0x0806));
    await pa.waitFor(1);
    const stats = await dp.stats(id);
    assert.ok(stats[1].drops >= 2, `suspended port counts its drops (${stats[1].drops})`);
  });
});
