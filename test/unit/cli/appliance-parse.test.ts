// First of the two tests per command for appliance check and install: argv → options, with a spy run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { applianceCheckCommand } from '../../../src/commands/appliance/check.js';
import { applianceInstallCommand } from '../../../src/commands/appliance/install.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;

describe('appliance verbs', () => {
  it('appliance check FILE [-c C]', async () => {
    assert.deepEqual((await parseWithSpy('appliance', applianceCheckCommand, ['appliance', 'check', 'a.gns3a'])).opts, { file: 'a.gns3a', compute: undefined });
    assert.deepEqual((await parseWithSpy('appliance', applianceCheckCommand, ['appliance', 'check', 'a.gns3a', '-c', 'remote'])).opts, { file: 'a.gns3a', compute: 'remote' });
    await assert.rejects(parseWithSpy('appliance', applianceCheckCommand, ['appliance', 'check']), isUsage);
  });

  it('appliance install FILE [--appliance-version V] [--compute C]', async () => {
    assert.deepEqual((await parseWithSpy('appliance', applianceInstallCommand, ['appliance', 'install', 'a.gns3a'])).opts, { file: 'a.gns3a', applianceVersion: undefined, compute: undefined });
    assert.deepEqual((await parseWithSpy('appliance', applianceInstallCommand, ['appliance', 'install', 'a.gns3a', '--appliance-version', '2.0', '--compute', 'c1'])).opts,
      { file: 'a.gns3a', applianceVersion: '2.0', compute: 'c1' });
    await assert.rejects(parseWithSpy('appliance', applianceInstallCommand, ['appliance', 'install', 'a.gns3a', '--appliance-version']), isUsage);
  });
});
