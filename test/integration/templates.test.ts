import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createProject } from '../helpers/lab.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '20300-20349', EMUCTL_CONSOLE_PORT_RANGE: '27500-27519' };
const VPCS = '19021f99-e36f-394d-b4a1-8aaa902ab9cc';
const SWITCH = '1966b864-93e7-32d5-965f-001384eec461';
const HUB = 'b4503ea9-d6b6-3695-9fe4-1db3b39290b0';

describe('templates (GNS3 2.2)', () => {
  let d: TestDaemon;
  let pid: string;
  let custom: any;

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    pid = await createProject(d, 'tpl');
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  const fromTemplate = (templateId: string, body: Record<string, unknown> = { x: 0, y: 0 }) => d.api('POST', `/v2/projects/${pid}/templates/${templateId}`, body);

  it('lists the built-in templates with the ids and fields GNS3 2.2 gives them', async () => {
    const r = await d.api('GET', '/v2/templates');
    assert.equal(r.status, 200);
    const byId = new Map((r.body as any[]).map((t) => [t.template_id, t]));
    assert.deepEqual(byId.get(VPCS), {
      template_id: VPCS, template_type: 'vpcs', name: 'VPCS', default_name_format: 'PC{0}', category: 'guest',
      symbol: ':/symbols/vpcs_guest.svg', properties: { base_script_file: 'vpcs_base_config.txt' }, builtin: true, compute_id: null,
    });
    assert.deepEqual(byId.get(SWITCH), {
      template_id: SWITCH, template_type: 'ethernet_switch', name: 'Ethernet switch', default_name_format: 'Switch{0}', category: 'switch',
      symbol: ':/symbols/ethernet_switch.svg', console_type: 'none', builtin: true, compute_id: null,
    });
    assert.equal(byId.get(HUB).default_name_format, 'Hub{0}');
    assert.equal((await d.api('GET', `/v2/templates/${VPCS}`)).body.name, 'VPCS');
    // GNS3 2.2's ids: uuid3(NAMESPACE_DNS, type).
    assert.deepEqual(byId.get('39e257dc-8412-3174-b6b3-0ee3ed6a43e9'), {
      template_id: '39e257dc-8412-3174-b6b3-0ee3ed6a43e9', template_type: 'cloud', name: 'Cloud', default_name_format: 'Cloud{0}', category: 'guest',
      symbol: ':/symbols/cloud.svg', builtin: true, compute_id: null,
    });
    assert.deepEqual(byId.get('df8f4ea9-33b7-3e96-86a2-c39bc9bb649c'), {
      template_id: 'df8f4ea9-33b7-3e96-86a2-c39bc9bb649c', template_type: 'nat', name: 'NAT', default_name_format: 'NAT{0}', category: 'guest',
      symbol: ':/symbols/cloud.svg', builtin: true, compute_id: null,
    });
  });

  it('nodes from the VPCS template are named PC1, PC2… (the first free number), with the template id and symbol', async () => {
    const pc1 = await fromTemplate(VPCS, { x: 10, y: 20 });
    assert.equal(pc1.status, 201, pc1.text);
    assert.equal(pc1.headers.get('x-route'), '/v2/projects/{project_id}/templates/{template_id}');
    assert.deepEqual([pc1.body.name, pc1.body.node_type, pc1.body.compute_id, pc1.body.template_id, pc1.body.symbol, pc1.body.x, pc1.body.y], ['PC1', 'vpcs', 'local', VPCS, ':/symbols/vpcs_guest.svg', 10, 20]);
    assert.ok(!('base_script_file' in pc1.body.properties), 'the base script becomes the startup script');
    const pc2 = (await fromTemplate(VPCS)).body;
    assert.equal(pc2.name, 'PC2');
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${pc1.body.node_id}`)).status, 204);
    assert.equal((await fromTemplate(VPCS)).body.name, 'PC1', 'a freed name is reused, as GNS3 does');
    assert.equal((await fromTemplate(VPCS, { x: 0, y: 0, name: 'Host A' })).body.name, 'HostA');
    assert.equal((await fromTemplate(VPCS, { x: 0, y: 0, name: 'PC2' })).body.name, 'PC3', 'a taken name gets the next number');
    const sw = (await fromTemplate(SWITCH)).body;
    assert.deepEqual([sw.name, sw.node_type, sw.status, sw.ports.length], ['Switch1', 'ethernet_switch', 'started', 8]);
    assert.equal((await fromTemplate(HUB)).body.name, 'Hub1');
  });

  it('template errors: 400 bad body, 404 unknown template, project or compute, 409 closed project', async () => {
    assert.equal((await fromTemplate(VPCS, { x: 0 })).status, 400, 'y is required');
    assert.equal((await fromTemplate(VPCS, { x: 0, y: 0, colour: 'red' })).status, 400);
    assert.equal((await fromTemplate('00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await fromTemplate(VPCS, { x: 0, y: 0, compute_id: 'nowhere' })).status, 404);
    assert.equal((await d.api('GET', '/v2/templates/not-a-uuid')).status, 400);
    const closed = await createProject(d, 'closed');
    await d.api('POST', `/v2/projects/${closed}/close`);
    assert.equal((await d.api('POST', `/v2/projects/${closed}/templates/${VPCS}`, { x: 0, y: 0 })).status, 409);
  });

  it('creates, changes, duplicates and deletes custom templates; built-in ones stay', async () => {
    const bad = await d.api('POST', '/v2/templates', { name: 'Core', template_type: 'ethernet_switch', compute_id: 'local', ports_mapping: [{ name: 'p0', port_number: 0, type: 'trunk' }] });
    assert.equal(bad.status, 400);
    assert.equal((await d.api('POST', '/v2/templates', { name: 'X', template_type: 'frame_relay_switch', compute_id: 'local' })).status, 400);
    const created = await d.api('POST', '/v2/templates', {
      name: 'Core', template_type: 'ethernet_switch', compute_id: 'local', default_name_format: 'Core{0}',
      ports_mapping: [0, 1, 2, 3].map((i) => ({ name: `Gi0/${i}`, port_number: i, type: i === 0 ? 'dot1q' : 'access', vlan: 10 })),
    });
    assert.equal(created.status, 201, created.text);
    custom = created.body;
    assert.equal(custom.builtin, false);
    assert.equal(custom.category, 'switch');
    assert.equal(custom.symbol, ':/symbols/ethernet_switch.svg');
    const renamed = await d.api('PUT', `/v2/templates/${custom.template_id}`, { name: 'Core switch' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Core switch');
    assert.equal((await d.api('PUT', `/v2/templates/${custom.template_id}`, { ports_mapping: 'none' })).status, 400);
    assert.equal((await d.api('PUT', `/v2/templates/${VPCS}`, { name: 'Mine' })).status, 409);
    assert.equal((await d.api('DELETE', `/v2/templates/${VPCS}`)).status, 409);
    assert.equal((await d.api('POST', `/v2/templates/${VPCS}/duplicate`, {})).status, 409);
    const copy = await d.api('POST', `/v2/templates/${custom.template_id}/duplicate`, {});
    assert.equal(copy.status, 201);
    assert.notEqual(copy.body.template_id, custom.template_id);
    assert.equal((await d.api('DELETE', `/v2/templates/${copy.body.template_id}`)).status, 204);
    assert.equal((await d.api('GET', `/v2/templates/${copy.body.template_id}`)).status, 404);

    const node = (await fromTemplate(custom.template_id)).body;
    assert.equal(node.name, 'Core1');
    assert.deepEqual(node.ports.map((p: any) => p.name), ['Gi0/0', 'Gi0/1', 'Gi0/2', 'Gi0/3']);
    assert.equal(node.properties.ports_mapping[0].type, 'dot1q');
    assert.equal(node.template_id, custom.template_id);
  });

  it("a custom qemu template (GNS3 2.2 has no built-in one) gets GNS3's qemu defaults and makes QEMU nodes named {name}-{0}", async () => {
    assert.ok(!(await d.api('GET', '/v2/templates')).body.some((t: any) => t.template_type === 'qemu'), 'no built-in qemu template');
    const created = await d.api('POST', '/v2/templates', { name: 'Router', template_type: 'qemu', compute_id: 'local', ram: 128, adapters: 3, port_name_format: 'eth{0}' });
    assert.equal(created.status, 201, created.text);
    const t = created.body;
    assert.deepEqual([t.category, t.symbol, t.default_name_format, t.linked_clone, t.console_type, t.hda_disk_interface, t.on_close, t.custom_adapters],
      ['guest', ':/symbols/qemu_guest.svg', '{name}-{0}', true, 'telnet', 'none', 'power_off', []]);
    assert.equal((await d.api('POST', '/v2/templates', { name: 'Bad', template_type: 'qemu', compute_id: 'local', adapter_type: 'nope' })).status, 400);
    const r1 = await fromTemplate(t.template_id, { x: 5, y: 5 });
    assert.equal(r1.status, 201, r1.text);
    assert.deepEqual([r1.body.name, r1.body.node_type, r1.body.symbol, r1.body.port_name_format, r1.body.template_id], ['Router-1', 'qemu', ':/symbols/qemu_guest.svg', 'eth{0}', t.template_id]);
    assert.deepEqual([r1.body.properties.ram, r1.body.properties.adapters], [128, 3]);
    assert.deepEqual(r1.body.ports.map((p: any) => p.name), ['eth0', 'eth1', 'eth2']);
    assert.equal((await fromTemplate(t.template_id)).body.name, 'Router-2');
    assert.equal((await d.api('DELETE', `/v2/templates/${t.template_id}`)).status, 204);
  });

  it('custom templates are saved atomically in the state directory and survive a restart', async () => {
    const file = join(d.home, 'state', 'templates-0.json');
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).map((t: any) => t.name), ['Core switch']);
    assert.ok(!readdirSync(join(d.home, 'state')).some((f) => f.endsWith('.tmp')));
    await d.stop();
    d = await startTestDaemon({ home: d.home, env: ENV });
    const again = await d.api('GET', `/v2/templates/${custom.template_id}`);
    assert.equal(again.status, 200);
    assert.equal(again.body.name, 'Core switch');
    assert.equal((await d.api('GET', '/v2/templates')).body.length, 6, 'five built-ins (switch, hub, VPCS, cloud, NAT) and the one custom template');
  });
});
