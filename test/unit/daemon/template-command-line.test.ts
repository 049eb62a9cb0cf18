import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ControllerEvents } from '../../../src/daemon/controller/events.js';
import { TemplateManager } from '../../../src/daemon/controller/templates.js';
import { InvalidError } from '../../../src/daemon/errors.js';
import { silentLogger } from '../../../src/daemon/logger.js';

describe('templates: what would reach a command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-template-command-line-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses QEMU options off the allow-list at create and update (400 naming them); image names stay relative', async () => {
    const templates = new TemplateManager({ events: new ControllerEvents(), log: silentLogger });
    for (const options of ['-plugin file=x.so', '-drive file=/etc/shadow', '-kernel /etc/shadow', '-initrd ../../x', '-device loader,file=/x']) {
      await assert.rejects(templates.create({ name: 'R', template_type: 'qemu', compute_id: 'local', options }), (err: Error) => err instanceof InvalidError && err.message.includes(options.split(' ')[0]), options);
    }
    const made = await templates.create({ name: 'R', template_type: 'qemu', compute_id: 'local', options: '-cpu max -kernel vmlinuz -nographic' });
    await assert.rejects(templates.update(made.template_id, { options: '-pidfile /tmp/x' }), /-pidfile/);
    assert.equal(templates.get(made.template_id).options, '-cpu max -kernel vmlinuz -nographic', 'unchanged');
    await assert.rejects(templates.create({ name: 'R', template_type: 'qemu', compute_id: 'local', adapter_type: 'e1000,romfile=/x' }), InvalidError);
  });

  it('keeps a saved template that the checks now refuse (the nodes it makes are refused instead)', async () => {
    const file = join(dir, 'state', 'templates.json');
    mkdirSync(join(dir, 'state'));
    writeFileSync(file, JSON.stringify([{ template_id: '6f8e6a4e-8c58-4c8e-9d0a-6f3b9c1b2a11', name: 'old', template_type: 'qemu', compute_id: 'local', options: '-pidfile /tmp/x' }]));
    const templates = new TemplateManager({ file, events: new ControllerEvents(), log: silentLogger });
    await templates.load();
    assert.equal(templates.get('6f8e6a4e-8c58-4c8e-9d0a-6f3b9c1b2a11').options, '-pidfile /tmp/x');
  });
});
