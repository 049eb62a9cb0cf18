import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { jsonOf, runInProcess, startCliDaemon, stopCliDaemon, type CliDaemon } from './helpers/cli.js';

/** The archive a real GNS3 3.0.6 exported with its default compression (zstd members). */
const ZSTD_EXPORT = fileURLToPath(new URL('../../../test/fixtures/gns3-v3/export-zstd.gns3project', import.meta.url));

describe('project import of a GNS3 3.x (zstd) export into the emuctl daemon', () => {
  let d: CliDaemon;
  before(async () => {
    d = await startCliDaemon();
  });
  after(() => stopCliDaemon(d));

  it('imports: the CLI re-deflates the zstd members; the nodes and their links are there', async () => {
    const project = jsonOf(await runInProcess(['project', 'import', ZSTD_EXPORT, '--name', 'from-gns3-3', '--json'], d.env));
    assert.equal(project.name, 'from-gns3-3');
    assert.equal(jsonOf(await runInProcess(['project', 'open', 'from-gns3-3', '--json'], d.env)).status, 'opened');
    const nodes = jsonOf(await runInProcess(['node', 'list', '-p', 'from-gns3-3', '--json'], d.env));
    assert.deepEqual(nodes.map((n: { name: string }) => n.name).sort(), ['PC1', 'PC2', 'SW1']);
    // GNS3 3.x writes compute_id and usage into each node's properties: the nodes still reach their compute, so the links are wired.
    const links = jsonOf(await runInProcess(['link', 'list', '-p', 'from-gns3-3', '--json'], d.env));
    assert.equal(links.length, 2);
  });
});
