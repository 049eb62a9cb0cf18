// image list and image import against a real daemon: the kind column, --kind, and one-line errors
// for an archive that cannot be read or loaded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runInProcess, startCliDaemon, stopCliDaemon, type CliDaemon } from './helpers/cli.js';

describe('image list and import', () => {
  let d: CliDaemon;
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-cli-images-'));
  const cli = (...argv: string[]) => runInProcess(argv, d.env);

  before(async () => {
    d = await startCliDaemon();
    writeFileSync(join(tmp, 'small.img'), Buffer.alloc(4096, 1));
    writeFileSync(join(tmp, 'not-a-tar.tar'), 'this is not a docker save archive\n');
    const up = await cli('image', 'upload', join(tmp, 'small.img'));
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await stopCliDaemon(d);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('lists QEMU images with their kind; --kind qemu keeps GNS3\'s fields and adds kind', async () => {
    const table = await cli('image', 'list');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^KIND +NAME +SIZE +MD5$/m);
    assert.match(table.stdout, /^qemu +small\.img +4\.1 kB +[0-9a-f]{32}$/m);
    const json = await cli('image', 'list', '--kind', 'qemu', '--json');
    assert.deepEqual(JSON.parse(json.stdout).map((i: any) => [i.kind, i.filename, i.filesize]), [['qemu', 'small.img', 4096]]);
    const docker = await cli('image', 'list', '--kind', 'docker', '--json');
    assert.equal(docker.code, 0, docker.stderr);
    for (const image of JSON.parse(docker.stdout)) assert.deepEqual(Object.keys(image).sort(), ['image', 'kind']);
  });

  it('image import: a missing file, or an archive the compute cannot load, is one line on stderr and exit 1', async () => {
    const missing = await cli('image', 'import', join(tmp, 'none.tar'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read .*none\.tar: no such file\n$/);
    assert.equal(missing.stderr.trim().split('\n').length, 1);
    const bad = await cli('image', 'import', join(tmp, 'not-a-tar.tar'));
    assert.equal(bad.code, 1, bad.stdout);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  });
});
