// Replays every in-scope request that gns3-server 2.2 recorded in its API examples against a real
// emuctl daemon: same method, path and body (GNS3's identifiers mapped to objects made here), and
// checks the status, the X-Route and that every top-level key GNS3 answered with is there.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { RECORDED_EXAMPLES, type RecordedExample } from './fixtures/gns3-examples.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20200-20299', EMUCTL_CONSOLE_PORT_RANGE: '28300-28349' };
const FREE_CONSOLE = 28349;
const FREE_CONSOLE_DOCKER = 28348;

describe('GNS3 2.2 recorded API examples, replayed against emuctl', () => {
  let d: TestDaemon;
  const roles = new Map<string, string | number>();

  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await d.api(method, path, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    roles.set('localCompute', 'local');
    roles.set('serverVersion', (await ok('GET', '/v2/version')).version);
    roles.set('freeConsole', FREE_CONSOLE).set('freeConsoleDocker', FREE_CONSOLE_DOCKER);
    roles.set('freshProject', randomUUID());
    roles.set('freshComputeProject', randomUUID());

    const project = await createProject(d, 'examples');
    const sw = await createNode(d, project, 'SW1', 'ethernet_switch');
    const hub = await createNode(d, project, 'HUB1', 'ethernet_hub');
    const pc = await createNode(d, project, 'PC1', 'vpcs');
    roles.set('project', project).set('switch', sw.node_id).set('hub', hub.node_id).set('vpcs', pc.node_id);
    roles.set('link', (await createLink(d, project, [sw.node_id, 3], [hub.node_id, 4])).link_id);
    roles.set('vpcsLink', (await createLink(d, project, [pc.node_id, 0], [sw.node_id, 5])).link_id);
    roles.set('template', (await ok('POST', '/v2/templates', { name: 'VPCS_TEST', template_type: 'vpcs', compute_id: 'local' })).template_id);

    const toLoad = await ok('POST', '/v2/projects', { name: 'to-load' });
    await ok('POST', `/v2/projects/${toLoad.project_id}/close`);
    roles.set('projectFileToLoad', join(toLoad.path, toLoad.filename));

    const computeProject = (await ok('POST', '/v2/compute/projects', { name: 'compute-examples' })).project_id;
    roles.set('computeProject', computeProject);
    roles.set('computeVpcs', (await ok('POST', `/v2/compute/projects/${computeProject}/vpcs/nodes`, { name: 'PC-A' })).node_id);
    const image = await testImage('host');
    roles.set('computeDocker', (await ok('POST', `/v2/compute/projects/${computeProject}/docker/nodes`, { name: 'D-A', image })).node_id);
    roles.set('newComputeDocker', (await ok('POST', `/v2/compute/projects/${computeProject}/docker/nodes`, { name: 'D-B', image })).node_id);
    roles.set('lport', (await ok('POST', `/v2/compute/projects/${computeProject}/ports/udp`, {})).udp_port);
    roles.set('rport', (await ok('POST', `/v2/compute/projects/${computeProject}/ports/udp`, {})).udp_port);
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  /** The recorded request with each recorded identifier replaced by the object its role names. */
  const replayed = (ex: RecordedExample) => {
    const ids = ex.ids ?? {};
    const mapped = (token: string): string | number | undefined => {
      const role = ids[token];
      if (role === undefined) return undefined;
      const value = roles.get(role);
      assert.ok(value !== undefined, `${ex.example}: no object plays '${role}' yet`);
      return value;
    };
    const [method, recordedPath] = ex.request.split(' ');
    const path = recordedPath.split('/').map((segment) => String(mapped(segment) ?? segment)).join('/');
    const body = ex.body === undefined ? undefined : JSON.parse(JSON.stringify(ex.body), (_key, value) => (typeof value === 'string' || typeof value === 'number' ? mapped(String(value)) ?? value : value));
    return { method, path, body };
  };

  const keysOf = (value: unknown) => Object.keys(value as Record<string, unknown>);

  for (const ex of RECORDED_EXAMPLES) {
    const title = ex.differs ? `${ex.example} (emuctl: ${ex.differs.status}, ${ex.differs.because})` : ex.example;
    it(title, async () => {
      const { method, path, body } = replayed(ex);
      const r = await d.api(method, path, body);
      assert.equal(r.status, ex.differs?.status ?? ex.status, `${method} ${path}: ${r.text}`);
      assert.equal(r.headers.get('x-route'), ex.route);
      if (r.text) assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      if (ex.differs) return;
      if (ex.keys) {
        const items: unknown[] = ex.list ? r.body : [r.body];
        assert.ok(Array.isArray(items) && items.length > 0, `${ex.example}: expected ${ex.list ? 'a non-empty list' : 'an object'}, got ${r.text}`);
        for (const item of items) {
          const missing: string[] = ex.keys.filter((k) => !keysOf(item).includes(k));
          assert.deepEqual(missing, [], `${ex.example}: keys GNS3 answers with are missing`);
        }
      } else if (ex.list) {
        assert.ok(Array.isArray(r.body), r.text);
      }
      if (ex.keep) roles.set(ex.keep.role, r.body[ex.keep.field]);
    });
  }
});
