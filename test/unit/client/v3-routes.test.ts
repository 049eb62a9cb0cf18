import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotInApiError } from '../../../src/client/api-version.js';
import { v3Path } from '../../../src/client/v3-routes.js';
import { loadContract } from '../../cli/helpers/gns3-v3-contract.js';

const P = '1a2b3c4d-0000-4000-8000-000000000001';
const L = '1a2b3c4d-0000-4000-8000-000000000005';
const N = '1a2b3c4d-0000-4000-8000-000000000004';

/** True when `path` (after /v3/) is a route of the recorded GNS3 3.0.6 OpenAPI document for `method`. */
function inContract(method: string, path: string): boolean {
  const { openapi } = loadContract();
  const concrete = `/v3/${path.split('?')[0]}`;
  return Object.entries(openapi.paths as Record<string, Record<string, unknown>>).some(([template, methods]) =>
    new RegExp(`^${template.replace(/\{(\w+)\}/g, (_m, name: string) => (/_path$/.test(name) ? '.+' : '[^/]+'))}$`).test(concrete) && method.toLowerCase() in methods);
}

describe('v3Path: GNS3 2.2 routes as GNS3 3.x has them', () => {
  const cases: [string, string, string][] = [
    ['POST', `projects/${P}/links/${L}/start_capture`, `projects/${P}/links/${L}/capture/start`],
    ['POST', `projects/${P}/links/${L}/stop_capture`, `projects/${P}/links/${L}/capture/stop`],
    ['GET', `projects/${P}/links/${L}/pcap`, `projects/${P}/links/${L}/capture/stream`],
    ['POST', `compute/projects/${P}/ethernet_switch/nodes/${N}/adapters/0/ports/5/nio`, `computes/local/projects/${P}/ethernet_switch/nodes/${N}/adapters/0/ports/5/nio`],
    ['POST', 'computes/local/qemu/images/disk.qcow2', 'images/upload/disk.qcow2'],
    ['GET', `projects/${P}/export`, `projects/${P}/export?compression=zip`],
    ['GET', `projects/${P}/export?include_snapshots=yes`, `projects/${P}/export?include_snapshots=yes&compression=zip`],
    ['GET', `projects/${P}/export?compression=none`, `projects/${P}/export?compression=none`],
    ['GET', 'projects', 'projects'],
    ['POST', `projects/${P}/nodes/${N}/start`, `projects/${P}/nodes/${N}/start`],
    ['GET', 'computes/local/qemu/images', 'computes/local/qemu/images'],
  ];
  for (const [method, v2, v3] of cases) {
    it(`${method} ${v2.replace(/[0-9a-f-]{36}/g, '…')}`, () => {
      assert.equal(v3Path(method, v2), v3);
      assert.ok(inContract(method, v3), `${method} /v3/${v3} is a route of GNS3 3.0.6`);
    });
  }

  it('what 3.x has no route for is a usage error (exit 2) in one line', () => {
    for (const [method, path] of [
      ['DELETE', `compute/projects/${P}/ethernet_switch/nodes/${N}/adapters/0/ports/5/nio`],
      ['DELETE', 'computes/local/qemu/images/disk.qcow2'],
      ['POST', `projects/${P}/nodes/${N}/resize_disk`],
      ['POST', 'computes/local/docker/images'],
    ]) {
      assert.throws(() => v3Path(method, path), (err: Error) => err instanceof NotInApiError && err.exitCode === 2 && !err.message.includes('\n'));
    }
  });
});
