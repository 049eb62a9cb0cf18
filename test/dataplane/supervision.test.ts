import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDataplane, type DataplaneApi } from '../../src/daemon/dataplane/index.js';
import { UnavailableError } from '../../src/daemon/errors.js';
import { eth, icmpEcho, parsePcap, Peer, settle, until, wire } from './helpers.js';

const A = '02:00:00:00:00:0a';
const B = '02:00:00:00:00:0b';

describe('dataplane worker supervision', () => {
  let dp: DataplaneApi;
  let dir: string;
  const peers: Peer[] = [];
  const logged: string[] = [];
  const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };

  before(async () => {
    dp = await createDataplane({ log });
    dir = await mkdtemp(join(tmpdir(), 'emuctl-sup-'));
  });
  after(async () => {
    delete process.env.EMUCTL_FAILPOINTS;
    for (const p of peers) p.close();
    await dp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('restarts a killed worker and rebuilds nodes, NIOs, filters, suspend and captures: traffic flows again', async () => {
    await dp.createNode('sw', 'switch', [{ port: 0, type: 'access', vlan: 1 }, { port: 1, type: 'access', vlan: 1 }, { port: 2, type: 'access', vlan: 1 }]);
    await dp.createNode('idle', 'hub', [{ port: 0, type: 'access', vlan: 1 }]);
    await dp.setNodeSuspended('idle', true);
    // port 0: drops ICMP (bpf); port 2: suspended
    const pa = await wire(dp, 'sw', 0, { filters: { bpf: ['icmp'] } });
    const pb = await wire(dp, 'sw', 1);
    const pc = await wire(dp, 'sw', 2, { suspend: true });
    peers.push(pa, pb, pc);
    const pcap = join(dir, 'sw-1.pcap');
    const capture = await dp.startCapture('sw', 1, pcap, 1);
    const before = eth(B, A, 0x88b5, Buffer.alloc(46, 1));
    pa.send(before);
    await pb.waitFor(1);
    await until(async () => parsePcap(await readFile(pcap)).records.length === 1, 2000, 'the first frame in the capture');

    process.env.EMUCTL_FAILPOINTS = 'dataplane.worker.crash=1';
    await assert.rejects(dp.stats('sw'), (e: Error) => e instanceof UnavailableError && /crashed \(failpoint dataplane\.worker\.crash/.test(e.message));
    await assert.rejects(dp.macTable('sw'), UnavailableError, 'calls answer 503 while the worker restarts');
    assert.match(logged.join('\n'), /dataplane worker died: failpoint dataplane\.worker\.crash: simulated dataplane worker crash; restarting .* rebuilding 2 nodes, 3 NIOs, 1 captures/);

    await until(() => dp.stats('sw').then(() => true, () => false), 10_000, 'the worker to come back');
    assert.match(logged.join('\n'), /dataplane worker restarted \((js|native) engine\): 2 nodes, 3 NIOs, 1 captures rebuilt$/m);

    const after = eth(B, A, 0x88b5, Buffer.alloc(46, 2));
    pa.send(after);
    pa.send(icmpEcho(B, A, [10, 0, 0, 1], [10, 0, 0, 2]));
    pb.send(eth(A, B, 0x88b5));
    await pb.waitFor(2);
    await settle();
    assert.deepEqual(pb.frames, [before, after], 'frames flow again through the same lports; the bpf filter still drops ICMP');
    assert.equal(pc.frames.length, 0, 'the suspended port stays suspended');
    const counters = await dp.stats('sw');
    assert.equal(counters[0].drops, 1, 'the ICMP frame dropped by the rebuilt filter');
    assert.equal(counters[2].drops, 1, 'the frame flooded to the suspended port, dropped');

    const info = await dp.captureInfo('sw', 1);
    assert.deepEqual(info, capture, 'the capture goes on, same file and generation');
    await dp.stopCapture('sw', 1);
    const records = parsePcap(await readFile(pcap)).records.map((r) => r.data);
    assert.deepEqual(records, [before, after, eth(A, B, 0x88b5)], 'the file continues after the restart: one header, frames from both workers');
    assert.deepEqual((await dp.stats('idle')).length, 1, 'nodes without NIOs come back too');
  });
});
