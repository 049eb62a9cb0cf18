import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { describe, it } from 'node:test';
import { nodeOwner, projectOwner } from '../../../src/daemon/compute/ownership.js';
import { UdpPortAllocator } from '../../../src/daemon/compute/udp-ports.js';
import { ConflictError } from '../../../src/daemon/errors.js';

/** A UDP socket the kernel bound on a free port of 0.0.0.0. */
function holdUdp(port = 0): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(port, '0.0.0.0', () => resolve(socket));
  });
}

/** A range of `size` ports starting near a port the kernel just gave out (so most of them are free). */
async function nearbyRange(size: number): Promise<[number, number]> {
  const probe = await holdUdp();
  const first = probe.address().port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const start = Math.min(first, 65535 - size);
  return [start, start + size - 1];
}

describe('UDP port allocator', () => {
  const A = nodeOwner('p1', 'node-a');
  const B = nodeOwner('p1', 'node-b');

  it('holds companions with the port (VPCS binds port + 9) and never hands them out', async () => {
    const range = await nearbyRange(12);
    const udp = new UdpPortAllocator(range, '127.0.0.1');
    const port = await udp.allocate(A, { companions: [9], host: '0.0.0.0' });
    assert.deepEqual(udp.used(), [port, port + 9]);
    const others: number[] = [];
    for (;;) {
      try {
        others.push(await udp.allocate(B));
      } catch (err) {
        assert.ok(err instanceof ConflictError && /No free UDP port left/.test(err.message), String(err));
        break;
      }
    }
    assert.ok(!others.includes(port + 9), 'the companion is never given to another owner');
    udp.releaseOwner(A);
    assert.ok(!udp.used().includes(port) && !udp.used().includes(port + 9), 'released together');
  });

  it('needs port + 9 inside the range and free on the host', async () => {
    const range = await nearbyRange(10);
    const udp = new UdpPortAllocator(range, '127.0.0.1');
    const blocker = await holdUdp(range[1]).catch(() => undefined);
    try {
      // Only range[0] has its +9 (range[1]) inside the range, and that one is bound by someone else.
      await assert.rejects(udp.allocate(A, { companions: [9], host: '0.0.0.0' }), /No free UDP port left in \d+-\d+ \(with port \+ 9 free too\)/);
      assert.deepEqual(udp.used(), [], 'nothing stays held after a failed allocation');
    } finally {
      blocker?.close();
    }
  });

  it('a port /ports/udp gave the project passes to the NIO that uses it; other owners are refused', async () => {
    const udp = new UdpPortAllocator(await nearbyRange(5), '127.0.0.1');
    const port = await udp.allocate(projectOwner('p1'));
    udp.reserve(port, A);
    assert.throws(() => udp.reserve(port, B), /UDP port \d+ is already used in this project/);
    assert.throws(() => udp.reserve(port, nodeOwner('p2', 'x')), /already used by another project/);
    udp.release(port, projectOwner('p1'));
    assert.deepEqual(udp.used(), [port], 'a release by a former holder changes nothing');
    udp.release(port, A);
    assert.deepEqual(udp.used(), []);
  });

  it('releaseProject frees what any owner of the project holds, and only that', async () => {
    const udp = new UdpPortAllocator(await nearbyRange(6), '127.0.0.1');
    await udp.allocate(A);
    await udp.allocate(projectOwner('p1'));
    const other = await udp.allocate(nodeOwner('p2', 'x'));
    udp.releaseProject('p1');
    assert.deepEqual(udp.used(), [other]);
  });
});
