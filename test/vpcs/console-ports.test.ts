import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { ConsolePortAllocator, isTcpPortFree } from '../../src/daemon/compute/vpcs/console-ports.js';
import { ConflictError } from '../../src/daemon/errors.js';
import { freeTcpPorts } from './vpcs-helpers.js';

describe('console ports', () => {
  test('a port held on 127.0.0.1 only is not free for VPCS, which binds 0.0.0.0', async () => {
    const [port] = await freeTcpPorts(1);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      assert.equal(await isTcpPortFree(port), false);
    } finally {
      server.close();
    }
    assert.equal(await isTcpPortFree(port), true);
  });

  test('the allocator never hands out the same port twice and skips ports others hold', async () => {
    const [base] = await freeTcpPorts(1);
    const min = base > 60000 ? base - 10 : base;
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(min + 1, '0.0.0.0', resolve).once('error', () => resolve()));
    try {
      const allocator = new ConsolePortAllocator({ min, max: min + 5 });
      const ports = await Promise.all([1, 2, 3].map(() => allocator.allocate()));
      assert.equal(new Set(ports).size, 3);
      assert.ok(!ports.includes(min + 1) || !busy.listening, 'a held port is skipped');
      assert.ok(ports.every((p) => p >= min && p <= min + 5 && allocator.isReserved(p)));
      allocator.release(ports[0]);
      assert.equal(allocator.isReserved(ports[0]), false);
    } finally {
      busy.close();
    }
  });

  test('a preferred port in use, or an exhausted range, is a ConflictError', async () => {
    const [port] = await freeTcpPorts(1);
    const allocator = new ConsolePortAllocator({ min: port, max: port });
    assert.equal(await allocator.allocate(port), port);
    await assert.rejects(allocator.allocate(port), (err: Error) => err instanceof ConflictError && /Console port \d+ is already in use/.test(err.message));
    await assert.rejects(allocator.allocate(), (err: Error) => err instanceof ConflictError && /No free console port left/.test(err.message));
  });

  test('defaults to 5000-10000 and rejects a nonsense range', () => {
    const allocator = new ConsolePortAllocator();
    assert.deepEqual([allocator.min, allocator.max], [5000, 10000]);
    assert.throws(() => new ConsolePortAllocator({ min: 10, max: 5 }), RangeError);
  });
});
