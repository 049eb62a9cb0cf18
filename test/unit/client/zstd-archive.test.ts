import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import yauzl from 'yauzl';
import { hasZstdMembers, rezipWithoutZstd } from '../../../src/client/zstd-archive.js';
import { ZIP_METHOD_ZSTD as ZIP_ZSTD } from '../../../src/util/zstd-stream.js';

/** The archive a real GNS3 3.0.6 exported with its default compression (zstd members). */
const ZSTD_EXPORT = fileURLToPath(new URL('../../../../test/fixtures/gns3-v3/export-zstd.gns3project', import.meta.url));

async function members(file: string): Promise<{ name: string; method: number; data: Buffer }[]> {
  const zip = await yauzl.openPromise(file, { autoClose: false });
  const out: { name: string; method: number; data: Buffer }[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      const chunks: Buffer[] = [];
      if (entry.compressionMethod !== ZIP_ZSTD) for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      out.push({ name: entry.fileName, method: entry.compressionMethod, data: Buffer.concat(chunks) });
    }
  } finally {
    zip.close();
  }
  return out;
}

describe('GNS3 3.x zstd archives', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-zstd-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are recognised by their member compression (method 93)', async () => {
    assert.equal(await hasZstdMembers(ZSTD_EXPORT), true);
    const copy = join(dir, 'deflated.gns3project');
    await rezipWithoutZstd(ZSTD_EXPORT, copy);
    assert.equal(await hasZstdMembers(copy), false);
  });

  it('re-deflated: the same members, in order, and the topology reads back as GNS3 wrote it', async () => {
    const copy = join(dir, 'again.gns3project');
    await rezipWithoutZstd(ZSTD_EXPORT, copy);
    const before = (await members(ZSTD_EXPORT)).map((m) => m.name);
    const after = await members(copy);
    assert.deepEqual(after.map((m) => m.name), before);
    assert.ok(after.every((m) => m.method === 8 || m.method === 0));
    const topology = JSON.parse(after.find((m) => m.name === 'project.gns3')!.data.toString('utf8'));
    assert.equal(topology.name, 'contract-v3');
    assert.equal(topology.type, 'topology');
    assert.deepEqual(topology.topology.nodes.map((n: { name: string }) => n.name).sort(), ['PC1', 'PC2', 'SW1']);
  });
});
