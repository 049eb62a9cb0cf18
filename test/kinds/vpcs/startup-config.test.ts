import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import {
  applyStartupSettings,
  parseStartupConfig,
  readStartupConfig,
  renderStartupConfig,
  startupConfigPath,
  writeStartupConfig,
} from '../../../src/daemon/kinds/vpcs/startup-config.js';
import { tempDir } from './vpcs-helpers.js';

describe('startup.vpc', () => {
  const dir = tempDir();
  after(() => dir.cleanup());

  test('is written atomically in the node directory and read back', async () => {
    const nodeDir = `${dir.path}/node`;
    assert.equal(await readStartupConfig(dir.path, nodeDir), undefined);
    await writeStartupConfig(dir.path, nodeDir, 'set pcname PC1');
    assert.equal(startupConfigPath(nodeDir), `${nodeDir}/startup.vpc`);
    assert.equal(await readStartupConfig(dir.path, nodeDir), 'set pcname PC1\n');
    assert.deepEqual(readdirSync(nodeDir), ['startup.vpc']);
  });

  test('renders the name and the address as console commands', () => {
    assert.equal(renderStartupConfig({ name: 'PC1' }), 'set pcname PC1\n');
    assert.equal(renderStartupConfig({ name: 'PC1', ip: '10.0.0.1/24', gateway: '10.0.0.254' }),
      'set pcname PC1\nip 10.0.0.1/24 10.0.0.254\n');
    assert.throws(() => renderStartupConfig({ name: 'two words' }), /one word/);
  });

  test('updating settings keeps the user\'s other lines', () => {
    const script = 'set pcname PC1\nip 10.0.0.1/24\nip dns 8.8.8.8\nset mtu 1400\n';
    assert.equal(applyStartupSettings(script, { name: 'web', ip: '10.0.0.9/16', gateway: '10.0.0.1' }),
      'set pcname web\nip dns 8.8.8.8\nset mtu 1400\nip 10.0.0.9/16 10.0.0.1\n');
  });

  test('parses every form VPCS accepts, including what its own `save` writes', () => {
    assert.deepEqual(parseStartupConfig('set pcname alpha\nip 10.0.0.1 10.0.0.254 24\n'),
      { name: 'alpha', ip: '10.0.0.1/24', gateway: '10.0.0.254' });
    assert.deepEqual(parseStartupConfig('ip 10.0.0.1/24 10.0.0.254'), { ip: '10.0.0.1/24', gateway: '10.0.0.254' });
    assert.deepEqual(parseStartupConfig('ip 10.1.1.70 255.255.255.192 10.1.1.65'), { ip: '10.1.1.70/26', gateway: '10.1.1.65' });
    assert.deepEqual(parseStartupConfig('ip 10.0.0.5'), { ip: '10.0.0.5/24', gateway: undefined });
    assert.deepEqual(parseStartupConfig('ip dhcp\nip dns 8.8.8.8\nip mtu 1400\n'), { dns: '8.8.8.8' });
  });

  test('sets, replaces and removes the DNS server line; removes the address line', () => {
    assert.equal(renderStartupConfig({ name: 'PC1', ip: '10.0.0.1/24', dns: '10.0.0.53' }), 'set pcname PC1\nip 10.0.0.1/24\nip dns 10.0.0.53\n');
    assert.equal(applyStartupSettings('set pcname PC1\nip 10.0.0.1/24\nip dns 10.0.0.53\n', { dns: '10.0.0.54' }), 'set pcname PC1\nip 10.0.0.1/24\nip dns 10.0.0.54\n');
    assert.equal(applyStartupSettings('set pcname PC1\nip 10.0.0.1/24\nip dns 10.0.0.53\n', { ip: null, dns: null }), 'set pcname PC1\n');
  });
});
