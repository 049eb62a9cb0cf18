// The two writers that meet a full disk most, on a real one (a small tmpfs filled to the last byte):
// the atomic writer leaves the old file and no temp file, and the pcap writer stops on a whole record.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { writeFileAtomic } from '../../../src/daemon/atomic-write.js';
import { InsufficientStorageError } from '../../../src/daemon/errors.js';
import { PcapWriter } from '../../../src/daemon/dataplane/pcap-writer.js';
import { replaceFileUnder } from '../../../src/daemon/safe-fs.js';
import { mountSmallDisk, SMALL_DISK_FILLER, type SmallDisk } from '../../helpers/small-disk.js';

describe('writes on a full disk', () => {
  let disk: SmallDisk;
  const files = () => readdirSync(disk.path).filter((f) => f !== SMALL_DISK_FILLER).sort();

  before(() => {
    disk = mountSmallDisk(1 << 20, 'emuctl-unit-disk-');
  });
  after(() => disk.remove());

  it('an atomic write is a 507 naming the problem, the old content stays, no temp file is left', async () => {
    const target = join(disk.path, 'state.json');
    writeFileSync(target, 'old');
    disk.fill();
    try {
      for (const data of ['x'.repeat(100_000), [Buffer.alloc(50_000), Buffer.alloc(50_000)], Readable.from([Buffer.alloc(60_000), Buffer.alloc(60_000)])]) {
        await assert.rejects(writeFileAtomic(target, data), (err: Error) => {
          assert.ok(err instanceof InsufficientStorageError, String(err));
          assert.match(err.message, /state\.json: no space left on the device \(ENOSPC\)/);
          return true;
        });
        assert.deepEqual(files(), ['state.json']);
        assert.equal(readFileSync(target, 'utf8'), 'old');
      }
    } finally {
      disk.free();
    }
  });

  it('a write below a root with no link followed (safe-fs) is the same 507: old content kept, no temp file, the directories it made removed', async () => {
    const root = join(disk.path, 'root');
    mkdirSync(join(root, 'kept'), { recursive: true });
    writeFileSync(join(root, 'kept', 'f'), 'old');
    disk.fill();
    try {
      for (const [path, data] of [['kept/new/deeper/f', 'x'.repeat(100_000)], ['kept/f', Readable.from([Buffer.alloc(60_000), Buffer.alloc(60_000)])]] as const) {
        await assert.rejects(replaceFileUnder(root, path, data), (err: Error) => {
          assert.ok(err instanceof InsufficientStorageError, String(err));
          assert.match(err.message, /no space left on the device \(ENOSPC\)/);
          return true;
        });
        assert.deepEqual(readdirSync(join(root, 'kept')), ['f'], path);
        assert.equal(readFileSync(join(root, 'kept', 'f'), 'utf8'), 'old');
      }
    } finally {
      disk.free();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a stream whose write fails is drained, not destroyed (an HTTP request can still be answered)', async () => {
    // Chunks come slowly, so the source is far from its end when the write fails.
    const source = Readable.from((async function* () {
      for (let i = 0; i < 50; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        yield Buffer.alloc(1000);
      }
    })());
    let ended = false;
    source.on('end', () => (ended = true));
    await assert.rejects(writeFileAtomic(join(disk.path, 'limited'), source, { onChunk: () => { throw new Error('over the limit'); } }), /over the limit/);
    for (let i = 0; i < 300 && !ended; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(ended, 'the source was read to its end');
    assert.deepEqual(files().filter((f) => f.includes('limited')), []);
  });

  it('a pcap writer whose batches no longer fit reports it once, ends on a whole record and still closes', { timeout: 30_000 }, async () => {
    const path = join(disk.path, 'cap.pcap');
    const failures: string[] = [];
    const writer = await PcapWriter.create(await open(path, 'w'), 1, (err) => failures.push(String(err.code)));
    disk.fill(10_000);
    try {
      const frame = Buffer.alloc(914, 1);
      // Two batches queue up behind the one that fails: the writer must still settle.
      for (let i = 0; i < 160; i++) writer.record(frame);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.close();
      assert.deepEqual(failures, ['ENOSPC']);
      const data = readFileSync(path);
      assert.equal((data.length - 24) % (16 + frame.length), 0, `${data.length} bytes: a header and whole records`);
      assert.equal(writer.dropped + (data.length - 24) / (16 + frame.length), 160, 'every frame is either in the file or counted as dropped');
    } finally {
      disk.free();
    }
  });
});
