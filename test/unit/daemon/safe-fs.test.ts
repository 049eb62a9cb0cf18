import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../../src/daemon/errors.js';
import { makeDirs, openForRead, openForWrite, replaceFileUnder, withDir } from '../../../src/daemon/safe-fs.js';

const SECRET = 'outside: must stay as it is\n';

describe('safe-fs: files below a root with no link followed', () => {
  let base: string;
  let root: string;
  let outside: string;
  let oldUmask: number;

  before(() => {
    // A permissive umask shows the modes are set, not inherited.
    oldUmask = process.umask(0);
    base = mkdtempSync(join(tmpdir(), 'emuctl-safe-fs-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    mkdirSync(join(root, 'project-files'), { recursive: true });
    mkdirSync(outside);
  });
  after(() => {
    process.umask(oldUmask);
    rmSync(base, { recursive: true, force: true });
  });

  const plantOutsideFile = (name: string) => {
    const path = join(outside, name);
    writeFileSync(path, SECRET);
    return path;
  };

  it('reads and writes regular files, making directories 0700 and files 0600', async () => {
    await replaceFileUnder(root, 'project-files/a/b/notes.txt', Readable.from([Buffer.from('one '), Buffer.from('two')]));
    assert.equal(readFileSync(join(root, 'project-files/a/b/notes.txt'), 'utf8'), 'one two');
    assert.equal(statSync(join(root, 'project-files/a')).mode & 0o777, 0o700);
    assert.equal(statSync(join(root, 'project-files/a/b')).mode & 0o777, 0o700);
    assert.equal(statSync(join(root, 'project-files/a/b/notes.txt')).mode & 0o777, 0o600);
    const h = await openForRead(root, 'project-files/a/b/notes.txt');
    assert.equal(await h.readFile('utf8'), 'one two');
    await h.close();
    const w = await openForWrite(root, 'project-files/captures/x.pcap');
    await w.writeFile('pcap');
    await w.close();
    assert.equal(statSync(join(root, 'project-files/captures/x.pcap')).mode & 0o777, 0o600);
    assert.equal(statSync(join(root, 'project-files/captures')).mode & 0o777, 0o700);
  });

  it('refuses a directory link anywhere along the path (403) and leaves the outside alone', async () => {
    const secret = plantOutsideFile('secret.txt');
    symlinkSync(outside, join(root, 'project-files', 'evil'));
    await assert.rejects(openForRead(root, 'project-files/evil/secret.txt'), (e) => e instanceof ForbiddenError && /evil' is a symbolic link/.test(e.message));
    await assert.rejects(openForWrite(root, 'project-files/evil/secret.txt'), ForbiddenError);
    await assert.rejects(replaceFileUnder(root, 'project-files/evil/new.txt', 'x'), ForbiddenError);
    await assert.rejects(makeDirs(root, 'project-files/evil/sub'), ForbiddenError);
    assert.equal(readFileSync(secret, 'utf8'), SECRET);
    assert.ok(!existsSync(join(outside, 'new.txt')) && !existsSync(join(outside, 'sub')));
  });

  it('refuses a file link for reading and for an in-place write, so the target is never truncated', async () => {
    const target = plantOutsideFile('target.pcap');
    mkdirSync(join(root, 'caps'));
    symlinkSync(target, join(root, 'caps', 'link.pcap'));
    await assert.rejects(openForRead(root, 'caps/link.pcap'), ForbiddenError);
    await assert.rejects(openForWrite(root, 'caps/link.pcap'), ForbiddenError);
    await assert.rejects(openForWrite(root, 'caps/link.pcap', true), ForbiddenError);
    assert.equal(readFileSync(target, 'utf8'), SECRET);
    // A dangling link is not created through either.
    symlinkSync(join(outside, 'created-through-link'), join(root, 'caps', 'dangling.pcap'));
    await assert.rejects(openForWrite(root, 'caps/dangling.pcap'), ForbiddenError);
    assert.ok(!existsSync(join(outside, 'created-through-link')));
  });

  it('replaces a link at the name of a whole-file write instead of writing through it', async () => {
    const target = plantOutsideFile('replaced.txt');
    symlinkSync(target, join(root, 'caps', 'config.txt'));
    await replaceFileUnder(root, 'caps/config.txt', 'new content');
    assert.equal(readFileSync(join(root, 'caps', 'config.txt'), 'utf8'), 'new content');
    assert.equal(readFileSync(target, 'utf8'), SECRET);
  });

  it('refuses a file with another hard link (its content is shared with a file elsewhere)', async () => {
    const target = plantOutsideFile('hard.txt');
    linkSync(target, join(root, 'caps', 'hard.pcap'));
    await assert.rejects(openForRead(root, 'caps/hard.pcap'), (e) => e instanceof ForbiddenError && /hard links/.test(e.message));
    await assert.rejects(openForWrite(root, 'caps/hard.pcap'), ForbiddenError);
    assert.equal(readFileSync(target, 'utf8'), SECRET);
  });

  it('refuses a FIFO without hanging, and answers 404 / 409 / 400 for missing, wrong-kind and bad paths', async () => {
    execFileSync('mkfifo', [join(root, 'caps', 'fifo')]);
    await assert.rejects(openForRead(root, 'caps/fifo'), ForbiddenError);
    await assert.rejects(openForRead(root, 'caps/none.txt'), NotFoundError);
    await assert.rejects(openForRead(root, 'nothing/none.txt'), NotFoundError);
    await assert.rejects(openForRead(root, 'caps'), NotFoundError);
    await assert.rejects(openForWrite(root, 'caps/hard.pcap/x'), ConflictError);
    await assert.rejects(openForRead(root, 'y'.repeat(300)), NotFoundError, 'a name too long to exist is not there');
    await assert.rejects(openForWrite(root, 'y'.repeat(300)), InvalidError, 'but cannot be written');
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a\0b', 'a\\b']) await assert.rejects(openForRead(root, bad), InvalidError, bad);
  });

  it('makes a missing root (0700) when asked to create below it', async () => {
    const fresh = join(base, 'fresh', 'root');
    await replaceFileUnder(fresh, 'a.txt', 'x');
    assert.equal(statSync(join(base, 'fresh')).mode & 0o777, 0o700);
    assert.equal(statSync(fresh).mode & 0o777, 0o700);
    await assert.rejects(openForRead(join(base, 'absent'), 'a.txt'), NotFoundError);
  });

  it('never follows a directory swapped for a link between two calls', async () => {
    const secret = plantOutsideFile('swap.txt');
    await makeDirs(root, 'project-files/node/sub');
    renameSync(join(root, 'project-files/node'), join(root, 'project-files/node-moved'));
    mkdirSync(join(outside, 'sub'), { recursive: true });
    symlinkSync(outside, join(root, 'project-files/node'));
    await assert.rejects(openForWrite(root, 'project-files/node/sub/swap.txt'), ForbiddenError);
    await assert.rejects(openForRead(root, 'project-files/node/swap.txt'), ForbiddenError);
    assert.equal(readFileSync(secret, 'utf8'), SECRET);
    assert.ok(!existsSync(join(outside, 'sub', 'swap.txt')));
  });

  it('keeps writing into the directory it opened when that directory is swapped for a link during the call', async () => {
    const decoy = join(outside, 'race');
    mkdirSync(decoy);
    await makeDirs(root, 'race/inner');
    await withDir(root, ['race', 'inner'], false, async (dir) => {
      // The swap happens after the walk held the directory: the write lands in the directory held.
      renameSync(join(root, 'race'), join(root, 'race-held'));
      symlinkSync(decoy, join(root, 'race'));
      mkdirSync(join(decoy, 'inner'));
      const h = await dir.file('written.txt', constants.O_WRONLY | constants.O_CREAT);
      await h.writeFile('inside');
      await h.close();
    });
    assert.equal(readFileSync(join(root, 'race-held', 'inner', 'written.txt'), 'utf8'), 'inside');
    assert.ok(!existsSync(join(decoy, 'inner', 'written.txt')));
  });
});
