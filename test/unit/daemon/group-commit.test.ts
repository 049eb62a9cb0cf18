import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommit } from '../../../src/daemon/controller/group-commit.js';

/** A writer whose writes finish when the test says so; each write records the state it snapshotted. */
function controlledWriter(state: { value: number[] }) {
  const writes: { snapshot: number[]; finish(err?: Error): void }[] = [];
  const write = () => {
    const snapshot = [...state.value];
    return new Promise<void>((resolve, reject) => writes.push({ snapshot, finish: (err) => (err ? reject(err) : resolve()) }));
  };
  return { writes, write };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('one write in flight; changes made meanwhile share the next write, each acknowledged once a write holding it is done', async () => {
    const state = { value: [] as number[] };
    const { writes, write } = controlledWriter(state);
    const commit = new GroupCommit(write);
    const acked: number[] = [];
    const change = (n: number) => {
      state.value.push(n);
      return commit.commit().then(() => acked.push(n));
    };
    const first = change(1);
    const rest = [2, 3, 4].map(change);
    await tick();
    assert.equal(writes.length, 1, 'the changes after the first wait for it to finish');
    assert.deepEqual(writes[0].snapshot, [1]);
    writes[0].finish();
    await first;
    await tick();
    assert.deepEqual(acked, [1], 'the others are not acknowledged by a write that did not hold them');
    assert.equal(writes.length, 2);
    assert.deepEqual(writes[1].snapshot, [1, 2, 3, 4], 'one write carries the three waiting changes');
    writes[1].finish();
    await Promise.all(rest);
    assert.deepEqual(acked, [1, 2, 3, 4]);
    await commit.idle();
    assert.equal(writes.length, 2);
  });

  it('a failed write undoes, newest first, its changes and those made after its snapshot, and fails every one of their requests', async () => {
    const state = { value: [] as number[] };
    const { writes, write } = controlledWriter(state);
    const commit = new GroupCommit(write, (err) => new Error(`mapped: ${(err as Error).message}`));
    const change = (n: number) => {
      state.value.push(n);
      return commit.commit(() => assert.equal(state.value.pop(), n, 'undone newest first'));
    };
    const inWrite = [change(1), change(2)];
    await tick();
    writes[0].finish();
    await tick();
    writes[1].finish();
    await Promise.all(inWrite);
    const failing = change(3);
    const later = change(4);
    await tick();
    assert.deepEqual(writes[2].snapshot, [1, 2, 3]);
    writes[2].finish(new Error('ENOSPC'));
    await assert.rejects(failing, /mapped: ENOSPC/);
    await assert.rejects(later, /mapped: ENOSPC/, 'a change made after the failed snapshot may build on it: it fails too');
    assert.deepEqual(state.value, [1, 2], 'memory is back at what is on disk');
    const next = change(5);
    await tick();
    assert.deepEqual(writes[3].snapshot, [1, 2, 5], 'writes go on after a failure');
    writes[3].finish();
    await next;
  });
});
