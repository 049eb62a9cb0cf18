import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSettings } from '../../../src/daemon/settings.js';

describe('daemon settings', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-settings-'));
  const config = join(home, 'daemon.json');
  writeFileSync(config, JSON.stringify({ host: '127.0.0.2', port: 4000, projects_dir: '/from/file' }));

  it('defaults: 127.0.0.1:3080, projects under the home', async () => {
    const s = await resolveSettings({}, { EMUCTL_HOME: join(home, 'empty') });
    assert.equal(s.host, '127.0.0.1');
    assert.equal(s.port, 3080);
    assert.equal(s.projectsDir, join(home, 'empty', 'projects'));
    assert.equal(s.sources.host, 'default');
    assert.equal(s.auth, undefined);
  });

  it('flags > env > config file > defaults', async () => {
    const env = { EMUCTL_HOME: home, EMUCTL_PORT: '5000' };
    const s = await resolveSettings({ host: '127.0.0.3' }, env);
    assert.equal(s.host, '127.0.0.3');
    assert.equal(s.sources.host, 'flag');
    assert.equal(s.port, 5000);
    assert.equal(s.sources.port, 'env');
    assert.equal(s.projectsDir, '/from/file');
    assert.equal(s.sources.projectsDir, 'file');
    const viaFlag = await resolveSettings({ config, port: 6000 }, { EMUCTL_HOME: join(home, 'elsewhere'), EMUCTL_PORT: '5000' });
    assert.equal(viaFlag.port, 6000);
    assert.equal(viaFlag.host, '127.0.0.2');
  });

  it('rejects bad values with a clear message', async () => {
    await assert.rejects(resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_PORT: 'abc' }), /EMUCTL_PORT must be a number/);
    await assert.rejects(resolveSettings({ port: 70000 }, { EMUCTL_HOME: home }), /out of range/);
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ colour: 'blue' }));
    await assert.rejects(resolveSettings({ config: bad }, { EMUCTL_HOME: home }), /unknown setting 'colour'/);
    writeFileSync(bad, '{not json');
    await assert.rejects(resolveSettings({ config: bad }, { EMUCTL_HOME: home }), /cannot read config file/);
  });

  it('gns3 version: flag > env > file > 2.2.42, and only 2.2.N', async () => {
    const empty = { EMUCTL_HOME: join(home, 'empty') };
    const byDefault = await resolveSettings({}, empty);
    assert.equal(byDefault.gns3Version, '2.2.42');
    assert.equal(byDefault.sources.gns3Version, 'default');
    const file = join(home, 'gns3.json');
    writeFileSync(file, JSON.stringify({ gns3_version: '2.2.40' }));
    assert.equal((await resolveSettings({ config: file }, empty)).gns3Version, '2.2.40');
    const fromEnv = await resolveSettings({ config: file }, { ...empty, EMUCTL_GNS3_VERSION: '2.2.41' });
    assert.equal(fromEnv.gns3Version, '2.2.41');
    assert.equal(fromEnv.sources.gns3Version, 'env');
    const fromFlag = await resolveSettings({ config: file, gns3Version: '2.2.43' }, { ...empty, EMUCTL_GNS3_VERSION: '2.2.41' });
    assert.equal(fromFlag.gns3Version, '2.2.43');
    assert.equal(fromFlag.sources.gns3Version, 'flag');
    for (const bad of ['2.3.0', '3.0.1', '2.2', '2.2.x', 'v2.2.42', '2.2.42-dev'])
      await assert.rejects(resolveSettings({ gns3Version: bad }, empty), /2\.2\.N/, bad);
  });
});
