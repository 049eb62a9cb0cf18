import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameHeap, FrameRing } from '../../src/daemon/dataplane/filters/frame-queues.js';
import { AVAILABLE_FILTERS, validateFilters } from '../../src/daemon/dataplane/filters/catalog.js';
import { isPassThrough, parseFilters } from '../../src/daemon/dataplane/filters/spec.js';
import { MacTable, macKey, macString } from '../../src/daemon/dataplane/mac-table.js';
import { InvalidError } from '../../src/daemon/errors.js';
import { parsePortConfigs, popTag, pushTag, QINQ } from '../../src/daemon/dataplane/vlan.js';

const frame = (n: number) => Buffer.from([n]);

describe('dataplane building blocks', () => {
  it('FrameHeap pops by due time, ties in arrival order', () => {
    const heap = new FrameHeap();
    const dues: number[] = [];
    for (let i = 0; i < 500; i++) {
      const due = Math.floor(Math.random() * 50); // many ties
      dues.push(due);
      heap.push(due, frame(i % 256));
    }
    assert.equal(heap.bytes, 500);
    const order = dues.map((due, i) => ({ due, i })).sort((a, b) => a.due - b.due || a.i - b.i);
    const popped: number[] = [];
    while (heap.size > 0) popped.push(heap.pop()[0]);
    assert.deepEqual(popped, order.map((o) => o.i % 256));
    assert.equal(heap.peekDue(), Infinity);
    assert.equal(heap.bytes, 0);
  });

  it('FrameRing keeps FIFO order across growth', () => {
    const ring = new FrameRing();
    for (let i = 0; i < 50; i++) ring.push(frame(i));
    for (let i = 0; i < 30; i++) assert.equal(ring.shift()[0], i);
    for (let i = 50; i < 200; i++) ring.push(frame(i % 256));
    const rest: number[] = [];
    while (ring.size > 0) rest.push(ring.shift()[0]);
    assert.deepEqual(rest, [...Array(170).keys()].map((i) => (i + 30) % 256));
    assert.equal(ring.bytes, 0);
  });

  it('MAC keys are exact 48-bit numbers', () => {
    const b = Buffer.from('ffffffffffff02000000000a', 'hex');
    assert.equal(macKey(b, 0), 2 ** 48 - 1);
    assert.equal(macString(macKey(b, 6)), '02:00:00:00:00:0a');
    assert.equal(macString(1), '00:00:00:00:00:01');
  });

  it('MacTable learns per VLAN, moves, ages and flushes', () => {
    const p1 = { number: 1 };
    const p2 = { number: 2 };
    const t = new MacTable<{ number: number }>(1000, 3);
    t.learn(10, 0xa, p1, 0);
    assert.equal(t.lookup(10, 0xa, 500), p1);
    assert.equal(t.lookup(20, 0xa, 500), null, 'other VLAN');
    t.learn(10, 0xa, p2, 600);
    assert.equal(t.lookup(10, 0xa, 1500), p2, 'moved and refreshed');
    assert.equal(t.lookup(10, 0xa, 1601), null, 'aged');
    t.learn(10, 0xb, p1, 0);
    t.learn(10, 0xc, p1, 0);
    t.learn(10, 0xd, p1, 0);
    assert.equal(t.entries(0).length, 3, 'bounded: the fourth MAC is not learned');
    t.flushPort(p1);
    assert.deepEqual(t.entries(0).map((e) => e.mac), ['00:00:00:00:00:0a']);
    t.sweep(5000);
    assert.deepEqual(t.entries(5000), []);
  });

  it('pushTag and popTag are inverses', () => {
    const f = Buffer.from('ffffffffffff02000000000a0806' + '00'.repeat(46), 'hex');
    const t = pushTag(f, 0x88a8, 300);
    assert.equal(t.length, f.length + 4);
    assert.equal(t.readUInt16BE(12), 0x88a8);
    assert.equal(t.readUInt16BE(14), 300);
    assert.deepEqual(popTag(t), f);
  });

  it('parses port configs (qinq ethertype default 0x8100)', () => {
    const ports = parsePortConfigs('switch', [{ port: 3, type: 'qinq', vlan: 7 }]);
    assert.deepEqual(ports.get(3), { mode: QINQ, vlan: 7, tpid: 0x8100 });
    assert.throws(() => parsePortConfigs('switch', [{ port: 1, type: 'access', vlan: 4096 }]), InvalidError);
    assert.equal(parsePortConfigs('hub', [{ port: 1, type: 'qinq', vlan: 0 }]).size, 1, 'a hub ignores VLAN settings');
  });

  it('normalises filters: 0 or empty is off', () => {
    assert.ok(isPassThrough(parseFilters({ delay: [0, 30], packet_loss: [], bpf: ['  '] })));
    const s = parseFilters({ delay: [100, 5], bpf: ['icmp\n\narp', 'udp'], rate: [512], frequency_drop: [-1] });
    assert.deepEqual([s.delayMs, s.jitterMs, s.bpf, s.rateKbps, s.frequencyDrop], [100, 5, ['icmp', 'arp', 'udp'], 512, -1]);
  });

  it('checks filters once, against the catalogue the API lists; the dataplane takes the checked value as it is', () => {
    for (const def of AVAILABLE_FILTERS) {
      def.parameters.forEach((param, i) => {
        if (param.type !== 'int') return;
        const at = (value: number) => Array.from({ length: i + 1 }, (_, k) => (k === i ? value : param.maximum!));
        const checked = validateFilters({ [def.type]: at(param.maximum!) });
        assert.ok(!isPassThrough(parseFilters(checked)) || param.maximum === 0, `${def.type}[${i}] at its maximum reaches the dataplane`);
        assert.throws(() => validateFilters({ [def.type]: at(param.maximum! + 1) }), InvalidError, `${def.type}[${i}] over its maximum`);
      });
    }
  });
});
