// emuctl image import of a real `docker save` archive into the local compute's Docker engine,
// offline: the image appears in image list --kind docker, and a bad archive is one line, exit 1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runInProcess, startCliDaemon, stopCliDaemon, type CliDaemon } from '../../../cli/helpers/cli.js';
import { testImage } from '../../../helpers/docker-images.js';

const run = promisify(execFile);

/** The busybox test image (test/helpers/docker-images.ts, built offline and cached). */
async function hostImage(): Promise<string> {
  return testImage('host');
}

describe('end to end: image import loads a docker save archive into the compute', () => {
  let d: CliDaemon;
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-image-import-'));
  const archive = join(tmp, 'host.tar');
  const tag = `emuctl-test-import/host:${process.pid}`;
  const cli = (...argv: string[]) => runInProcess(argv, d.env);

  before(async () => {
    const source = await hostImage();
    // A tag of its own, saved and then untagged: the engine has the layers but not the name until the import.
    await run('docker', ['tag', source, tag]);
    await run('docker', ['save', tag, '-o', archive]);
    await run('docker', ['rmi', tag]);
    d = await startCliDaemon();
  });
  after(async () => {
    await stopCliDaemon(d);
    await run('docker', ['rmi', tag]).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('imports the archive and names the image; image list shows it with kind docker', async () => {
    const before = JSON.parse((await cli('image', 'list', '--kind', 'docker', '--json')).stdout) as { image: string }[];
    assert.ok(!before.some((i) => i.image === tag), 'not there before the import');
    const r = await cli('image', 'import', archive, '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { compute_id: 'local', images: [tag] });
    const human = await cli('image', 'import', archive);
    assert.match(human.stdout, new RegExp(`^✓ Imported ${tag.replace(/[.:/]/g, '\\$&')} into compute local: `, 'm'));
    const list = await cli('image', 'list');
    assert.match(list.stdout, new RegExp(`^docker +${tag.replace(/[.:/]/g, '\\$&')} +- +-$`, 'm'));
  });

  it('an archive Docker refuses: one line naming the compute and Docker\'s reason, exit 1', async () => {
    const missing = await cli('image', 'import', join(tmp, 'missing.tar'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^emuctl: cannot read .*missing\.tar: no such file\n$/);
    const bad = join(tmp, 'bad.tar');
    await run('sh', ['-c', `echo not a tar > '${bad}'`]);
    const refused = await cli('image', 'import', bad);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^emuctl: compute .*: Docker refused the archive: .+\n$/);
  });
});
