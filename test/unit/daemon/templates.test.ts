import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllerEvents, type ControllerEvent } from '../../../src/daemon/controller/events.js';
import { nodeFromTemplate, TemplateManager } from '../../../src/daemon/controller/templates.js';
import { DNS_NAMESPACE, uuidV3 } from '../../../src/util/uuid-v3.js';
import { ConflictError, InvalidError, NotFoundError } from '../../../src/daemon/errors.js';
import { createLogger } from '../../../src/daemon/logger.js';

describe('templates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-templates-'));
  const file = join(dir, 'state', 'templates.json');
  const log = createLogger({ debug: false });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('UUID v3 in the DNS namespace is Python uuid.uuid3 (the ids GNS3 gives its built-in templates)', () => {
    assert.equal(uuidV3(DNS_NAMESPACE, 'vpcs'), '19021f99-e36f-394d-b4a1-8aaa902ab9cc');
    assert.equal(uuidV3(DNS_NAMESPACE, 'ethernet_switch'), '1966b864-93e7-32d5-965f-001384eec461');
    assert.equal(uuidV3(DNS_NAMESPACE, 'ethernet_hub'), 'b4503ea9-d6b6-3695-9fe4-1db3b39290b0');
  });

  it('publishes template.created, .updated and .deleted with the template, and saves atomically', async () => {
    const events = new ControllerEvents();
    const seen: ControllerEvent[] = [];
    events.on('event', (e: ControllerEvent) => seen.push(e));
    const templates = new TemplateManager({ file, events, log });
    const created = await templates.create({ name: 'PC-T', template_type: 'vpcs', compute_id: 'local' });
    const updated = await templates.update(created.template_id, { name: 'PC-T2', template_type: 'ethernet_hub', builtin: true });
    assert.equal(updated.template_type, 'vpcs', 'the type cannot change');
    assert.equal(updated.builtin, false);
    await templates.remove(created.template_id);
    assert.deepEqual(seen.map((e) => [e.action, e.event.name, e.project_id]), [['template.created', 'PC-T', undefined], ['template.updated', 'PC-T2', undefined], ['template.deleted', 'PC-T2', undefined]]);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), []);
    assert.deepEqual(readdirSync(join(dir, 'state')), ['templates.json'], 'no temporary file left behind');
  });

  it('fills in GNS3 defaults per type and refuses what the type does not have', async () => {
    const templates = new TemplateManager({ events: new ControllerEvents(), log });
    const sw = await templates.create({ name: 'Core', template_type: 'ethernet_switch', compute_id: 'local', category: 1 });
    assert.equal(sw.category, 'switch', 'old numeric categories are mapped');
    assert.equal(sw.default_name_format, 'Switch{0}');
    assert.equal(sw.console_type, 'none');
    assert.equal((sw.ports_mapping as unknown[]).length, 8);
    await assert.rejects(templates.create({ name: 'X', template_type: 'iou', compute_id: 'local' }), InvalidError);
    await assert.rejects(templates.create({ name: 'X', template_type: 'docker', compute_id: 'local' }), /image/, 'a docker template names its image');
    await assert.rejects(templates.create({ name: 'X', template_type: 'docker', compute_id: 'local', image: 'frr', environment: 'A B=1' }), /variable name/);
    const frr = await templates.create({ name: 'FRR', template_type: 'docker', compute_id: 'local', image: 'frrouting/frr:v8.4.0' });
    assert.equal(frr.category, 'guest');
    assert.equal(frr.adapters, 1);
    assert.equal(frr.console_type, 'telnet');
    assert.deepEqual(frr.cap_add, ['NET_ADMIN', 'NET_RAW']);
    // containment.ts, as for a node: 400 naming the property, unless the operator widened it.
    await assert.rejects(templates.create({ name: 'X', template_type: 'docker', compute_id: 'local', image: 'frr', cap_add: ['NET_ADMIN', 'SYS_ADMIN'] }), /cap_add: SYS_ADMIN .*docker_unsafe_caps/);
    await assert.rejects(templates.create({ name: 'X', template_type: 'docker', compute_id: 'local', image: 'frr', privileged: true }), /privileged: .*docker_unsafe_caps/);
    await assert.rejects(templates.create({ name: 'X', template_type: 'docker', compute_id: 'local', image: 'localhost:5000/frr' }), /image: .*docker_registries/);
    await assert.rejects(templates.update(frr.template_id, { cap_add: ['SYS_PTRACE'] }), /cap_add: SYS_PTRACE/);
    const widened = new TemplateManager({ events: new ControllerEvents(), log, policy: { qemuUnsafeOptions: false, dockerUnsafeCaps: true, dockerRegistries: ['localhost:5000'] } });
    assert.equal((await widened.create({ name: 'P', template_type: 'docker', compute_id: 'local', image: 'localhost:5000/frr', privileged: true, cap_add: ['SYS_ADMIN'] })).privileged, true);
    await assert.rejects(templates.create({ name: 'X', template_type: 'vpcs' }), /compute_id/);
    await assert.rejects(templates.create({ name: 'X', template_type: 'vpcs', compute_id: 'local', ram: 256 }), /additional property 'ram'/);
    await assert.rejects(templates.create({ name: 'X', template_type: 'ethernet_hub', compute_id: 'local', ports_mapping: [{ name: 'e0' }] }), InvalidError);
    const builtin = templates.list().find((t) => t.builtin)!;
    await assert.rejects(templates.remove(builtin.template_id), ConflictError);
    await assert.rejects(templates.duplicate(builtin.template_id), ConflictError);
    await assert.rejects(templates.update(builtin.template_id, { name: 'mine' }), ConflictError);
    assert.throws(() => templates.get('00000000-0000-4000-8000-000000000000'), NotFoundError);
  });

  it('a node from a template: named from default_name_format, properties from the type fields, compute from the template or the client', async () => {
    const templates = new TemplateManager({ events: new ControllerEvents(), log });
    const vpcs = templates.list().find((t) => t.template_type === 'vpcs')!;
    const body = nodeFromTemplate(vpcs, { x: 5, y: 6 });
    assert.deepEqual({ ...body, properties: { ...body.properties } }, {
      name: 'PC{0}', node_type: 'vpcs', compute_id: 'local', template_id: vpcs.template_id, x: 5, y: 6,
      symbol: ':/symbols/vpcs_guest.svg', properties: { base_script_file: 'vpcs_base_config.txt' },
    });
    assert.equal(nodeFromTemplate(vpcs, { x: 0, y: 0, compute_id: 'remote1', name: 'Host A' }).compute_id, 'remote1');
    const custom = await templates.create({ name: 'Edge', template_type: 'ethernet_hub', compute_id: 'c2', default_name_format: '{name}-{0}' });
    const hub = nodeFromTemplate(custom, { x: 0, y: 0, compute_id: 'ignored' });
    assert.equal(hub.name, 'Edge-{0}');
    assert.equal(hub.compute_id, 'c2', "a custom template's compute wins");
    assert.equal((hub.properties!.ports_mapping as unknown[]).length, 8);
  });
});
