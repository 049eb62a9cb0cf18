// A GNS3 3.x export (zstd members, revision 10 topology) sent straight to the daemon's import route,
// as the GNS3 GUI or a curl script would: it imports and opens with its nodes and links.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

/** The archive a real GNS3 3.0.6 exported with its default compression (test/fixtures/gns3-v3/README.md). */
const ZSTD_EXPORT = fileURLToPath(new URL('../../../test/fixtures/gns3-v3/export-zstd.gns3project', import.meta.url));

describe('import of a GNS3 3.x export by the daemon itself', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon();
  });
  after(() => d.stop());

  it('reads the zstd members, drops what 3.x adds to node properties, and opens with the nodes and links', async () => {
    const id = randomUUID();
    const r = await fetch(`${d.url}/v2/projects/${id}/import?name=from-3x`, { method: 'POST', body: readFileSync(ZSTD_EXPORT) });
    assert.equal(r.status, 201, await r.text());
    assert.equal((await d.api('POST', `/v2/projects/${id}/open`)).status, 201);
    const nodes = (await d.api('GET', `/v2/projects/${id}/nodes`)).body as { name: string }[];
    assert.deepEqual(nodes.map((n) => n.name).sort(), ['PC1', 'PC2', 'SW1']);
    const links = (await d.api('GET', `/v2/projects/${id}/links`)).body as unknown[];
    assert.equal(links.length, 2);
    assert.doesNotMatch(d.log(), /cannot restore/);
    assert.equal((await d.api('POST', `/v2/projects/${id}/close`)).status, 204);
  });
});
