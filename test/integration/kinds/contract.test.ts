// The node-kind contract over every kind of kinds/index.ts, and the toy kind of test/fixtures/kinds/ that the
// daemon takes at start (issue 27): for each, on the real daemon, a node made from its template is accepted by
// its compute; the controller's ports and the compute's agree; the node JSON carries GNS3's fields; and once
// its project is closed nothing of the node is left (processes, interfaces, containers, firewall rules), and
// once deleted, no file. The real tools run: vpcs, QEMU (TCG), docker with the FRR test image, NAT's dnsmasq.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { NODE_KINDS } from '../../../src/daemon/kinds/index.js';
import type { KindDeps, NodeKind } from '../../../src/daemon/kinds/kind.js';
import { resolveSettings } from '../../../src/daemon/settings.js';
import type { JsonSchema } from '../../../src/daemon/schemas/validation.js';
import { EXTRA_KINDS } from '../../fixtures/kinds/index.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { testImage } from '../../helpers/docker-images.js';
import { firewallRules, freeTestSubnet } from '../../helpers/host-network.js';
import { createProject } from '../../helpers/lab.js';
import { fieldBreaches, interfacesMarkedBy, portBreaches, processesMarkedBy, templateBreaches } from '../../helpers/kind-contract.js';

const run = promisify(execFile);
const KINDS: readonly NodeKind[] = [...NODE_KINDS, ...EXTRA_KINDS];
/** Ports of this file: UDP tunnels 24870-24929, consoles 24930-24999. */
const PORT_ENV = { EMUCTL_UDP_PORT_RANGE: '24870-24929', EMUCTL_CONSOLE_PORT_RANGE: '24930-24999', EMUCTL_QEMU_ACCEL: 'tcg' };
/** What a user must give a template of these types (its compute refuses a node without it). */
const TEMPLATE_NEEDS: Record<string, () => Promise<Record<string, unknown>>> = {
  docker: async () => ({ image: await testImage('frr') }),
};

/** Polls `probe` until it answers an empty list; the last answer otherwise (a loaded machine gets 90 s). */
async function settles(probe: () => Promise<string[]> | string[]): Promise<string[]> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const left = await probe();
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function containersOf(nodeId: string): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '-q', '--filter', `label=emuctl.node=${nodeId}`]);
  return stdout.split('\n').filter(Boolean).map((id) => `container ${id}`);
}

describe('the node-kind contract, over every kind and the toy kind', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-contract-'));
  let d: TestDaemon;
  let deps: KindDeps;
  let subnet: string;

  before(async () => {
    subnet = (await freeTestSubnet()).subnet;
    const env = { ...process.env, ...PORT_ENV, EMUCTL_HOME: home, EMUCTL_NAT_SUBNET: subnet, EMUCTL_TEST_EXTRA_KINDS: '1' };
    d = await startTestDaemon({ home, env });
    deps = { settings: await resolveSettings({ port: 0, projectsDir: join(home, 'projects') }, env), env, log: { debug() {}, info() {}, warn() {}, error() {} } as never };
  });
  after(async () => {
    await d?.stop();
    removeHome(home);
  });

  it('the daemon took the toy kind: the controller and the compute both know it', async () => {
    const types = await d.api('GET', '/v2/templates');
    assert.equal(types.status, 200, types.text);
    const project = await createProject(d, 'contract-unknown');
    const unknown = await d.api('POST', `/v2/projects/${project}/nodes`, { name: 'x', node_type: 'no_such_kind', compute_id: 'local' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.body.message, /toy_wire/, 'the known types the 400 lists include the toy');
    assert.equal((await d.api('DELETE', `/v2/projects/${project}`)).status, 204);
  });

  for (const kind of KINDS) {
    it(`${kind.type}: template, ports, GNS3 fields, nothing left after close`, async () => {
      const needs = (await TEMPLATE_NEEDS[kind.type]?.()) ?? {};
      assert.deepEqual(templateBreaches(kind, deps, needs), [], 'the template makes a body the compute schema accepts');

      const template = await d.api('POST', '/v2/templates', { name: `contract ${kind.type}`, template_type: kind.type, compute_id: 'local', ...needs });
      assert.equal(template.status, 201, template.text);
      const project = await createProject(d, `contract-${kind.type}`);
      const made = await d.api('POST', `/v2/projects/${project}/templates/${template.body.template_id}`, { x: 0, y: 0 });
      assert.equal(made.status, 201, `the compute accepts a node of the template: ${made.text}`);
      const nodeId: string = made.body.node_id;
      const nodePath = `/v2/projects/${project}/nodes/${nodeId}`;
      if (!kind.controller.alwaysRunning) {
        const started = await d.api('POST', `${nodePath}/start`, {});
        assert.ok(started.status === 200 || started.status === 204, `start: ${started.text}`);
      }

      const node = await d.api('GET', nodePath);
      assert.equal(node.status, 200, node.text);
      const compute = kind.compute(deps);
      assert.deepEqual(fieldBreaches(kind, compute.createSchema as JsonSchema, node.body), []);
      await compute.close?.();
      const stats = await d.api('GET', `/v2/compute/projects/${project}/${kind.type}/nodes/${nodeId}/stats`);
      assert.equal(stats.status, 200, stats.text);
      assert.deepEqual(portBreaches(node.body.ports, stats.body), []);

      const nodeDir: string = node.body.node_directory ?? join(home, 'projects', project, 'project-files', kind.type, nodeId);
      const marks = [nodeId, nodeDir];
      const ifMarks = [nodeId.replace(/-/g, '').slice(0, 8), `emunat${d.pid}`];
      if (kind.type === 'vpcs' || kind.type === 'qemu') assert.notDeepEqual(processesMarkedBy(marks), [], `the check sees the running ${kind.type} process`);

      assert.equal((await d.api('POST', `/v2/projects/${project}/close`, {})).status, 204);
      assert.deepEqual(await settles(() => processesMarkedBy(marks)), [], 'no process of the node after close');
      assert.deepEqual(await settles(() => interfacesMarkedBy(ifMarks)), [], 'no interface of the node after close');
      assert.deepEqual(await settles(() => containersOf(nodeId)), [], 'no container of the node after close');
      assert.ok(!(await firewallRules()).includes(subnet), 'no firewall rule of the NAT subnet after close');

      assert.equal((await d.api('DELETE', `/v2/projects/${project}`)).status, 204);
      assert.ok(!existsSync(join(home, 'projects', project)), 'no file of the project after delete');
      assert.equal((await d.api('DELETE', `/v2/templates/${template.body.template_id}`)).status, 204);
    });
  }
});
