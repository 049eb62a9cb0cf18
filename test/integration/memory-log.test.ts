import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';

/** Key=value figures (MB) of the last memory line in the log. */
function lastMemoryLine(log: string): Record<string, number> {
  const lines = log.split('\n').filter((l) => / memory rss=/.test(l));
  return Object.fromEntries([...lines[lines.length - 1].matchAll(/(\w+)=([\d.]+)(?=\s|$)/g)].map((m) => [m[1], Number(m[2])]));
}

describe('memory log (memoryLogSeconds)', () => {
  let d: TestDaemon;
  let quiet: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ env: { EMUCTL_MEMORY_LOG_SECONDS: '1' } });
    quiet = await startTestDaemon();
  });
  after(async () => {
    for (const x of [d, quiet]) {
      await x?.stop();
      if (x) removeHome(x.home);
    }
  });

  it('logs RSS and the heaps of the main thread and the dataplane worker', async () => {
    await d.waitForLog(/ memory rss=.*worker_used=/);
    const m = lastMemoryLine(d.log());
    for (const key of ['rss', 'rss_anon', 'rss_file', 'main_used', 'main_total', 'main_physical', 'main_old', 'worker_used', 'worker_total', 'worker_physical', 'array_buffers', 'outside_heaps'])
      assert.ok(Number.isFinite(m[key]), `${key} in ${JSON.stringify(m)}`);
    assert.ok(m.rss > m.main_total, 'RSS holds the main heap');
    assert.ok(m.main_used <= m.main_total && m.worker_used <= m.worker_total);
    // The heap a full GC left is reported once one ran (V8 decides when): never more than the heap's size.
    if ('main_after_gc' in m) assert.ok(m.main_after_gc <= m.main_total);
    if ('worker_after_gc' in m) assert.ok(m.worker_after_gc <= m.worker_total);
    assert.ok(Math.abs(m.outside_heaps - (m.rss - m.main_physical - m.worker_physical)) <= 0.15, 'outside_heaps is RSS less both heaps');
  });

  it('logs nothing by default', async () => {
    await d.waitForLog(/ memory rss=/);
    assert.doesNotMatch(quiet.log(), / memory /);
  });
});
