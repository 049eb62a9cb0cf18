// First of the two tests per command for templates and the project archive/snapshot verbs: argv → options, with a spy run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { projectDuplicateCommand } from '../../../src/commands/project/duplicate.js';
import { projectExportCommand } from '../../../src/commands/project/export.js';
import { projectImportCommand } from '../../../src/commands/project/import.js';
import { snapshotCreateCommand } from '../../../src/commands/project/snapshot/create.js';
import { snapshotDeleteCommand } from '../../../src/commands/project/snapshot/delete.js';
import { snapshotListCommand } from '../../../src/commands/project/snapshot/list.js';
import { snapshotRestoreCommand } from '../../../src/commands/project/snapshot/restore.js';
import { templateCreateCommand } from '../../../src/commands/template/create.js';
import { templateDeleteCommand } from '../../../src/commands/template/delete.js';
import { templateListCommand } from '../../../src/commands/template/list.js';
import { templateShowCommand } from '../../../src/commands/template/show.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;

describe('template verbs', () => {
  it('template list (alias ls), show T, delete T (alias rm)', async () => {
    assert.deepEqual((await parseWithSpy('template', templateListCommand, ['template', 'ls'])).opts, {});
    assert.deepEqual((await parseWithSpy('template', templateShowCommand, ['template', 'show', 'VPCS'])).opts, { template: 'VPCS' });
    assert.deepEqual((await parseWithSpy('template', templateDeleteCommand, ['template', 'rm', '1a2b'])).opts, { template: '1a2b' });
    await assert.rejects(parseWithSpy('template', templateShowCommand, ['template', 'show']), isUsage);
  });

  it('template create NAME --type T, with the common fields and --set KEY=VALUE (JSON or text)', async () => {
    assert.deepEqual((await parseWithSpy('template', templateCreateCommand, ['template', 'create', 'PCs', '-t', 'vpcs'])).opts,
      { name: 'PCs', type: 'vpcs', compute: undefined, nameFormat: undefined, symbol: undefined, category: undefined, set: {} });
    const full = await parseWithSpy('template', templateCreateCommand, ['template', 'create', 'Core', '--type', 'ethernet_switch', '-c', 'remote',
      '--name-format', 'Core{0}', '--symbol', ':/symbols/router.svg', '--category', 'router',
      '--set', 'console_type=none', '--set', 'ports_mapping=[{"name":"p0","port_number":0,"type":"access","vlan":1}]']);
    assert.deepEqual(full.opts, {
      name: 'Core', type: 'ethernet_switch', compute: 'remote', nameFormat: 'Core{0}', symbol: ':/symbols/router.svg', category: 'router',
      set: { console_type: 'none', ports_mapping: [{ name: 'p0', port_number: 0, type: 'access', vlan: 1 }] },
    });
    await assert.rejects(parseWithSpy('template', templateCreateCommand, ['template', 'create', 'X']), isUsage);
    await assert.rejects(parseWithSpy('template', templateCreateCommand, ['template', 'create', 'X', '-t', 'vpcs', '--set', 'novalue']), isUsage);
    await assert.rejects(parseWithSpy('template', templateCreateCommand, ['template', 'create', 'X', '-t', 'vpcs', '--category', 'cloud']), isUsage);
  });
});

describe('project export, import, duplicate and snapshot verbs', () => {
  it('project export P -o FILE [--include-snapshots] [--reset-mac-addresses] [--store]', async () => {
    assert.deepEqual((await parseWithSpy('project', projectExportCommand, ['project', 'export', 'lab', '-o', 'lab.gns3project'])).opts,
      { project: 'lab', output: 'lab.gns3project', includeSnapshots: false, resetMacAddresses: false, noCompression: false });
    assert.deepEqual((await parseWithSpy('project', projectExportCommand, ['project', 'export', 'lab', '--output', 'x', '--include-snapshots', '--reset-mac-addresses', '--store'])).opts,
      { project: 'lab', output: 'x', includeSnapshots: true, resetMacAddresses: true, noCompression: true });
    await assert.rejects(parseWithSpy('project', projectExportCommand, ['project', 'export', 'lab']), isUsage);
  });

  it('project import FILE [--name N]; project duplicate P [--name N] [--reset-mac-addresses]', async () => {
    assert.deepEqual((await parseWithSpy('project', projectImportCommand, ['project', 'import', 'lab.gns3project'])).opts, { file: 'lab.gns3project', name: undefined });
    assert.deepEqual((await parseWithSpy('project', projectImportCommand, ['project', 'import', 'a.zip', '-n', 'copy'])).opts, { file: 'a.zip', name: 'copy' });
    assert.deepEqual((await parseWithSpy('project', projectDuplicateCommand, ['project', 'duplicate', 'lab'])).opts, { project: 'lab', name: undefined, resetMacAddresses: false });
    assert.deepEqual((await parseWithSpy('project', projectDuplicateCommand, ['project', 'duplicate', 'lab', '--name', 'lab2', '--reset-mac-addresses'])).opts, { project: 'lab', name: 'lab2', resetMacAddresses: true });
    await assert.rejects(parseWithSpy('project', projectImportCommand, ['project', 'import']), isUsage);
  });

  it('project snapshot create NAME / list / restore S / delete S, each with -p P', async () => {
    assert.deepEqual((await parseWithSpy('snapshot', snapshotCreateCommand, ['snapshot', 'create', 'before', '-p', 'lab'])).opts, { name: 'before', project: 'lab' });
    assert.deepEqual((await parseWithSpy('snapshot', snapshotListCommand, ['snapshot', 'ls'])).opts, { project: undefined });
    assert.deepEqual((await parseWithSpy('snapshot', snapshotRestoreCommand, ['snapshot', 'restore', 'before'])).opts, { snapshot: 'before', project: undefined });
    assert.deepEqual((await parseWithSpy('snapshot', snapshotDeleteCommand, ['snapshot', 'rm', 'before', '--project', 'lab'])).opts, { snapshot: 'before', project: 'lab' });
    await assert.rejects(parseWithSpy('snapshot', snapshotRestoreCommand, ['snapshot', 'restore']), isUsage);
  });
});
