import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_UPLOAD_CEILING, ImportLimits, overLimit, spareBytes } from '../../../src/daemon/controller/import-limits.js';
import { PayloadTooLargeError } from '../../../src/daemon/errors.js';
import { MAX_DEPTH, pathNameProblem, quoteName } from '../../../src/daemon/file-names.js';
import { ByteLimit } from '../../../src/util/byte-limit.js';

describe('import limits', () => {
  it('what a file system can spare: its free bytes less 5 % of its size, asked of the nearest existing directory', async () => {
    const fs = statfsSync(tmpdir());
    const spare = await spareBytes(join(tmpdir(), 'no-such-dir', 'below'));
    const expected = Math.max(0, (fs.bavail - fs.blocks * 0.05) * fs.bsize);
    // Other processes write and delete meanwhile: a GiB of slack.
    assert.ok(Math.abs(spare - expected) < 1024 ** 3, `${spare} vs ${expected}`);
    assert.ok(spare < fs.bavail * fs.bsize + 1024 ** 3, 'less than what is free');
  });

  it('a set limit is taken as it is; an unset one follows the disk, the upload one capped at 4 GiB', async () => {
    const set = new ImportLimits({ maxImportBytes: 10, maxImportExpandedBytes: 20, maxImportEntries: 30, maxImportRatio: 40 });
    assert.deepEqual(await set.upload(tmpdir()), { value: 10, setting: 'max_import_bytes', unit: 'bytes' });
    assert.deepEqual(await set.expanded(tmpdir()), { value: 20, setting: 'max_import_expanded_bytes', unit: 'bytes' });
    assert.deepEqual(set.entries, { value: 30, setting: 'max_import_entries', unit: 'entries' });
    assert.deepEqual(set.ratio, { value: 40, setting: 'max_import_ratio', unit: 'to 1' });
    const unset = new ImportLimits({ maxImportEntries: 30, maxImportRatio: 100 });
    const upload = await unset.upload(tmpdir());
    assert.equal(upload.value, Math.min(DEFAULT_UPLOAD_CEILING, await spareBytes(tmpdir())));
    assert.match(upload.origin!, /the default|what the temporary directory can spare/);
    const expanded = await unset.expanded(tmpdir());
    assert.equal(expanded.origin, 'what the projects file system can spare');
    assert.ok(Math.abs(expanded.value - (await spareBytes(tmpdir()))) < 64 * 1024 * 1024, 'evaluated at the time of the call');
  });

  it('the 413 names the setting and its value, and where a default comes from', () => {
    const err = overLimit('The archive upload', { value: 5, setting: 'max_import_bytes', unit: 'bytes', origin: 'the default' });
    assert.ok(err instanceof PayloadTooLargeError);
    assert.equal(err.message, 'The archive upload is over max_import_bytes (5 bytes: the default)');
  });
});

describe('client-given file names', () => {
  it('refuses control and invisible formatting characters, parts over NAME_MAX bytes, too deep or over PATH_MAX paths', () => {
    assert.equal(pathNameProblem('project-files/vpcs/x/startup.vpc', '/projects/p'), undefined);
    assert.equal(pathNameProblem(`${'é'.repeat(127)}`), undefined, '254 bytes');
    assert.match(pathNameProblem(`${'é'.repeat(128)}`)!, /256 bytes \(at most 255\)/);
    assert.match(pathNameProblem(`${'d/'.repeat(MAX_DEPTH)}f`)!, /65 directories deep/);
    assert.match(pathNameProblem(`${`${'d'.repeat(200)}/`.repeat(21)}f`, '/projects')!, /makes a path of \d+ bytes/);
    for (const bad of ['a\0b', 'a\nb', 'a\x7fb', 'a\u0085b', 'invoice\u202etxt.exe', 'a\u2066b', 'bad\ufffdutf8']) assert.match(pathNameProblem(bad)!, /control or invisible/, JSON.stringify(bad));
    assert.equal(pathNameProblem('caf\u00e9 \u4e2d\u6587 emoji \u{1f600}.txt'), undefined, 'ordinary Unicode is fine');
    assert.equal(quoteName('a\0b\u202e'), 'a\\u0000b\\u202e');
  });
});

describe('ByteLimit', () => {
  it('passes bytes through up to the limit and fails with the given error past it', async () => {
    const out: Buffer[] = [];
    const within = new ByteLimit(10, () => new Error('too big'));
    await pipeline(Readable.from([Buffer.alloc(4), Buffer.alloc(6)]), within, async function* (chunks) {
      for await (const c of chunks) out.push(c as Buffer);
    });
    assert.equal(within.bytes, 10);
    assert.equal(Buffer.concat(out).length, 10);
    const over = new ByteLimit(10, () => new PayloadTooLargeError('too big'));
    await assert.rejects(pipeline(Readable.from([Buffer.alloc(4), Buffer.alloc(7)]), over, async function* (chunks) {
      for await (const c of chunks) yield c;
    }), PayloadTooLargeError);
  });
});
