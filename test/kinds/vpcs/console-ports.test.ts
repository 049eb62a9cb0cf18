// test-runner: ranges are data (they are parsed and compared, never opened)
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { describe, test } from 'node:test';
import { ConsolePortAllocator, isTcpPortFree } from '../../../src/daemon/compute/console-ports.js';
import { ConflictError } from '../../../src/daemon/errors.js';
import { freeTcpPorts } from './vpcs-helpers.js';

const NODE_A = { projectId: 'p1', id: 'a' };
const NODE_B = { projectId: 'p1', id: 'b' };

/** A TCP listener the kernel placed on a free port of `host`; listening when this resolves, or the test fails. */
function holdPort(host: string, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

describe('console ports', () => {
  test('a port held on 127.0.0.1 only is not free for VPCS, which binds 0.0.0.0', async () => {
    const server = await holdPort('127.0.0.1');
    const { port } = server.address() as AddressInfo;
    try {
      assert.equal(await isTcpPortFree(port), false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    assert.equal(await isTcpPortFree(port), true);
  });

  test('the allocator never hands out the same port twice and skips ports others hold', async () => {
    const busy = await holdPort('0.0.0.0');
    const held = (busy.address() as AddressInfo).port;
    const min = Math.max(1024, held - 2);
    const max = Math.min(65535, held + 2);
    try {
      const allocator = new ConsolePortAllocator({ min, max });
      const ports: number[] = [];
      for (;;) {
        try {
          ports.push(await allocator.allocate(NODE_A));
        } catch (err) {
          assert.ok(err instanceof ConflictError && /No free console port left/.test(err.message), String(err));
          break;
        }
      }
      assert.ok(!ports.includes(held), `the port another program holds (${held}) is skipped: ${ports}`);
      assert.equal(new Set(ports).size, ports.length, 'no port twice');
      assert.ok(ports.every((p) => p >= min && p <= max && allocator.isReserved(p)));
      allocator.release(ports[0], NODE_B);
      assert.equal(allocator.isReserved(ports[0]), true, 'only the holder releases a port');
      allocator.release(ports[0], NODE_A);
      assert.equal(allocator.isReserved(ports[0]), false);
      assert.deepEqual(allocator.used(), ports.slice(1).sort((a, b) => a - b));
      allocator.releaseProject('p1');
      assert.deepEqual(allocator.used(), []);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  test('concurrent allocations get distinct ports', async () => {
    const [base] = await freeTcpPorts(1);
    const allocator = new ConsolePortAllocator({ min: base, max: base + 20 });
    const ports = await Promise.all(Array.from({ length: 5 }, (_, i) => allocator.allocate({ projectId: 'p', id: String(i) })));
    assert.equal(new Set(ports).size, 5);
  });

  test('a preferred port in use, or an exhausted range, is a ConflictError', async () => {
    const [port] = await freeTcpPorts(1);
    const allocator = new ConsolePortAllocator({ min: port, max: port });
    assert.equal(await allocator.allocate(NODE_A, port), port);
    await assert.rejects(allocator.allocate(NODE_B, port), (err: Error) => err instanceof ConflictError && /Console port \d+ is already in use/.test(err.message));
    await assert.rejects(allocator.allocate(NODE_B), (err: Error) => err instanceof ConflictError && /No free console port left/.test(err.message));
    allocator.releaseOwner(NODE_A);
    assert.equal(await allocator.allocate(NODE_B), port, 'released with its owner');
  });

  test('defaults to 5000-10000 and rejects a nonsense range', () => {
    const allocator = new ConsolePortAllocator();
    assert.deepEqual([allocator.min, allocator.max], [5000, 10000]);
    assert.throws(() => new ConsolePortAllocator({ min: 10, max: 5 }), RangeError);
  });
});
