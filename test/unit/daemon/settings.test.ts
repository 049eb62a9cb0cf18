// test-runner: ranges are data (they are parsed and compared, never opened)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

  it('every setting goes flag > env > file > default, and sources names every key', async () => {
    const fileHome = mkdtempSync(join(tmpdir(), 'emuctl-settings-'));
    writeFileSync(join(fileHome, 'daemon.json'), JSON.stringify({
      udp_port_range: [30000, 30100], console_port_range: [6000, 6100], forward_timeout_ms: 1111, max_body_bytes: 2222,
      max_connections: 33, max_streams: 44, headers_timeout_ms: 5555, request_timeout_ms: 6666, keep_alive_timeout_ms: 7777,
      json_max_depth: 8, json_max_items: 99, auth_max_failures: 3, auth_backoff_ms: 250, debug: true,
    }));
    const fromFile = await resolveSettings({}, { EMUCTL_HOME: fileHome });
    assert.deepEqual([fromFile.udpPortRange, fromFile.consolePortRange, fromFile.forwardTimeoutMs, fromFile.maxBodyBytes], [[30000, 30100], [6000, 6100], 1111, 2222]);
    assert.equal(fromFile.sources.udpPortRange, 'file');
    assert.equal(fromFile.sources.debug, 'file');

    const env = {
      EMUCTL_HOME: fileHome, EMUCTL_UDP_PORT_RANGE: '40000-40010', EMUCTL_CONSOLE_PORT_RANGE: '7000-7010', EMUCTL_FORWARD_TIMEOUT_MS: '2000',
      EMUCTL_MAX_BODY_BYTES: '3000', EMUCTL_MAX_CONNECTIONS: '50', EMUCTL_JSON_MAX_DEPTH: '10',
    };
    const fromEnv = await resolveSettings({}, env);
    assert.deepEqual(fromEnv.udpPortRange, [40000, 40010], 'the environment beats the config file for port ranges');
    assert.deepEqual(fromEnv.consolePortRange, [7000, 7010]);
    assert.equal(fromEnv.forwardTimeoutMs, 2000);
    assert.equal(fromEnv.maxBodyBytes, 3000);
    assert.equal(fromEnv.maxConnections, 50);
    assert.equal(fromEnv.jsonMaxDepth, 10);
    assert.equal(fromEnv.maxStreams, 44, 'file where the environment says nothing');
    for (const key of ['udpPortRange', 'consolePortRange', 'forwardTimeoutMs', 'maxBodyBytes', 'maxConnections', 'jsonMaxDepth']) assert.equal(fromEnv.sources[key], 'env', key);

    const fromFlags = await resolveSettings({ udpPortRange: [50000, 50001], consolePortRange: [8000, 8001], forwardTimeoutMs: 5, maxBodyBytes: 6 }, env);
    assert.deepEqual([fromFlags.udpPortRange, fromFlags.consolePortRange, fromFlags.forwardTimeoutMs, fromFlags.maxBodyBytes], [[50000, 50001], [8000, 8001], 5, 6]);
    assert.equal(fromFlags.sources.udpPortRange, 'flag');

    const defaults = await resolveSettings({}, { EMUCTL_HOME: join(home, 'none') });
    const keys = Object.keys(defaults).filter((k) => !['paths', 'sources', 'auth'].includes(k));
    for (const key of [...keys, 'authUser', 'authPassword']) assert.equal(defaults.sources[key], 'default', `sources.${key}`);
    assert.deepEqual([defaults.udpPortRange, defaults.consolePortRange], [[10000, 20000], [5000, 10000]]);
  });

  it('rejects bad values with a clear message', async () => {
    await assert.rejects(resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_PORT: 'abc' }), /EMUCTL_PORT must be a number/);
    await assert.rejects(resolveSettings({ port: 70000 }, { EMUCTL_HOME: home }), /out of range/);
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ colour: 'blue' }));
    await assert.rejects(resolveSettings({ config: bad }, { EMUCTL_HOME: home }), /unknown setting 'colour'/);
    await assert.rejects(resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_UDP_PORT_RANGE: '20-10' }), /EMUCTL_UDP_PORT_RANGE 20-10 is not a valid port range/);
    await assert.rejects(resolveSettings({}, { EMUCTL_HOME: home, EMUCTL_MAX_CONNECTIONS: '0' }), /EMUCTL_MAX_CONNECTIONS must be at least 1/);
    writeFileSync(bad, JSON.stringify({ console_port_range: 'x' }));
    await assert.rejects(resolveSettings({ config: bad }, { EMUCTL_HOME: home }), /console_port_range must be \[first, last\]/);
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

  it('memory log interval: flag > env > file > 0 (off)', async () => {
    const memHome = join(home, 'memory');
    const byDefault = await resolveSettings({}, { EMUCTL_HOME: memHome });
    assert.equal(byDefault.memoryLogSeconds, 0);
    assert.equal(byDefault.sources.memoryLogSeconds, 'default');
    const file = join(home, 'memory.json');
    writeFileSync(file, JSON.stringify({ memory_log_seconds: 30 }));
    const fromFile = await resolveSettings({ config: file }, { EMUCTL_HOME: memHome });
    assert.deepEqual([fromFile.memoryLogSeconds, fromFile.sources.memoryLogSeconds], [30, 'file']);
    const env = { EMUCTL_HOME: memHome, EMUCTL_MEMORY_LOG_SECONDS: '5' };
    const fromEnv = await resolveSettings({ config: file }, env);
    assert.deepEqual([fromEnv.memoryLogSeconds, fromEnv.sources.memoryLogSeconds], [5, 'env']);
    const fromFlag = await resolveSettings({ config: file, memoryLogSeconds: 2 }, env);
    assert.deepEqual([fromFlag.memoryLogSeconds, fromFlag.sources.memoryLogSeconds], [2, 'flag']);
    await assert.rejects(resolveSettings({}, { ...env, EMUCTL_MEMORY_LOG_SECONDS: 'often' }), /EMUCTL_MEMORY_LOG_SECONDS must be a number/);
  });

  it('QEMU settings (images_dir, max_image_bytes, qemu_accel) go flag > env > file > default like every setting', async () => {
    const qemuHome = join(home, 'qemu');
    const byDefault = await resolveSettings({}, { EMUCTL_HOME: qemuHome });
    assert.deepEqual([byDefault.imagesDir, byDefault.maxImageBytes, byDefault.qemuAccel], [join(qemuHome, 'images', 'QEMU'), 64 * 1024 ** 3, 'auto']);
    for (const key of ['imagesDir', 'maxImageBytes', 'qemuAccel']) assert.equal(byDefault.sources[key], 'default', key);
    const file = join(home, 'qemu.json');
    writeFileSync(file, JSON.stringify({ images_dir: '/from/file', max_image_bytes: 1000, qemu_accel: 'kvm' }));
    const fromFile = await resolveSettings({ config: file }, { EMUCTL_HOME: qemuHome });
    assert.deepEqual([fromFile.imagesDir, fromFile.maxImageBytes, fromFile.qemuAccel], ['/from/file', 1000, 'kvm']);
    const env = { EMUCTL_HOME: qemuHome, EMUCTL_IMAGES_DIR: '/from/env', EMUCTL_MAX_IMAGE_BYTES: '2000', EMUCTL_QEMU_ACCEL: 'tcg' };
    const fromEnv = await resolveSettings({ config: file }, env);
    assert.deepEqual([fromEnv.imagesDir, fromEnv.maxImageBytes, fromEnv.qemuAccel], ['/from/env', 2000, 'tcg']);
    for (const key of ['imagesDir', 'maxImageBytes', 'qemuAccel']) assert.equal(fromEnv.sources[key], 'env', key);
    const fromFlags = await resolveSettings({ config: file, imagesDir: '/from/flag', maxImageBytes: 3000, qemuAccel: 'auto' }, env);
    assert.deepEqual([fromFlags.imagesDir, fromFlags.maxImageBytes, fromFlags.qemuAccel], ['/from/flag', 3000, 'auto']);
    for (const key of ['imagesDir', 'maxImageBytes', 'qemuAccel']) assert.equal(fromFlags.sources[key], 'flag', key);

    await assert.rejects(resolveSettings({}, { ...env, EMUCTL_QEMU_ACCEL: 'hvf' }), /EMUCTL_QEMU_ACCEL must be auto, kvm or tcg, not 'hvf'/);
    writeFileSync(file, JSON.stringify({ qemu_accel: 'xen' }));
    await assert.rejects(resolveSettings({ config: file }, { EMUCTL_HOME: qemuHome }), /config file: qemu_accel must be auto, kvm or tcg, not 'xen'/);
    await assert.rejects(resolveSettings({}, { ...env, EMUCTL_MAX_IMAGE_BYTES: '0' }), /EMUCTL_MAX_IMAGE_BYTES must be at least 1/);
  });

  it('request guard lists (cors_origins, allowed_hosts): flag > env (comma-separated) > file (arrays) > none; bad entries refused', async () => {
    const guardHome = mkdtempSync(join(tmpdir(), 'emuctl-settings-'));
    const none = await resolveSettings({}, { EMUCTL_HOME: guardHome });
    assert.deepEqual([none.corsOrigins, none.allowedHosts], [[], []]);
    const file = join(guardHome, 'guard.json');
    writeFileSync(file, JSON.stringify({ cors_origins: ['http://ui.example:8080'], allowed_hosts: ['lab.example'] }));
    const fromFile = await resolveSettings({ config: file }, { EMUCTL_HOME: guardHome });
    assert.deepEqual([fromFile.corsOrigins, fromFile.allowedHosts, fromFile.sources.corsOrigins], [['http://ui.example:8080'], ['lab.example'], 'file']);
    const env = { EMUCTL_HOME: guardHome, EMUCTL_CORS_ORIGINS: 'http://a.example, https://b.example:8443', EMUCTL_ALLOWED_HOSTS: 'x.example,[fd00::1]' };
    const fromEnv = await resolveSettings({ config: file }, env);
    assert.deepEqual([fromEnv.corsOrigins, fromEnv.allowedHosts], [['http://a.example', 'https://b.example:8443'], ['x.example', '[fd00::1]']]);
    const fromFlags = await resolveSettings({ config: file, corsOrigins: ['http://c.example'], allowedHosts: ['y.example'] }, env);
    assert.deepEqual([fromFlags.corsOrigins, fromFlags.allowedHosts, fromFlags.sources.allowedHosts], [['http://c.example'], ['y.example'], 'flag']);

    for (const bad of ['*', 'null', 'http://a.example/path', 'ftp://a.example', 'a.example']) {
      await assert.rejects(resolveSettings({}, { EMUCTL_HOME: guardHome, EMUCTL_CORS_ORIGINS: bad }), new RegExp(`EMUCTL_CORS_ORIGINS: '${bad.replace(/[.*/]/g, '\\$&')}' is not an origin`));
    }
    for (const bad of ['*', '*.example', 'a.example:8080', 'a b', 'http://a.example']) {
      await assert.rejects(resolveSettings({ allowedHosts: [bad] }, { EMUCTL_HOME: guardHome }), /allowedHosts: '.*' is not a host name or address/, bad);
    }
    writeFileSync(file, JSON.stringify({ cors_origins: 'http://a.example' }));
    await assert.rejects(resolveSettings({ config: file }, { EMUCTL_HOME: guardHome }), /config file: cors_origins must be an array of strings/);
    rmSync(guardHome, { recursive: true, force: true });
  });

  it('import limits (max_import_bytes, max_import_expanded_bytes, max_import_entries): unset byte limits follow the disk, 10,000 entries by default', async () => {
    const importHome = join(home, 'import');
    const byDefault = await resolveSettings({}, { EMUCTL_HOME: importHome });
    assert.deepEqual([byDefault.maxImportBytes, byDefault.maxImportExpandedBytes, byDefault.maxImportEntries], [undefined, undefined, 10_000]);
    const file = join(home, 'import.json');
    writeFileSync(file, JSON.stringify({ max_import_bytes: 100, max_import_expanded_bytes: 200, max_import_entries: 300 }));
    const fromFile = await resolveSettings({ config: file }, { EMUCTL_HOME: importHome });
    assert.deepEqual([fromFile.maxImportBytes, fromFile.maxImportExpandedBytes, fromFile.maxImportEntries], [100, 200, 300]);
    const env = { EMUCTL_HOME: importHome, EMUCTL_MAX_IMPORT_BYTES: '1000', EMUCTL_MAX_IMPORT_EXPANDED_BYTES: '2000', EMUCTL_MAX_IMPORT_ENTRIES: '3000' };
    const fromEnv = await resolveSettings({ config: file }, env);
    assert.deepEqual([fromEnv.maxImportBytes, fromEnv.maxImportExpandedBytes, fromEnv.maxImportEntries], [1000, 2000, 3000]);
    for (const key of ['maxImportBytes', 'maxImportExpandedBytes', 'maxImportEntries']) assert.equal(fromEnv.sources[key], 'env', key);
    const fromFlags = await resolveSettings({ config: file, maxImportBytes: 1, maxImportExpandedBytes: 2, maxImportEntries: 3 }, env);
    assert.deepEqual([fromFlags.maxImportBytes, fromFlags.maxImportExpandedBytes, fromFlags.maxImportEntries], [1, 2, 3]);
    await assert.rejects(resolveSettings({}, { ...env, EMUCTL_MAX_IMPORT_BYTES: '0' }), /EMUCTL_MAX_IMPORT_BYTES must be at least 1/);
    await assert.rejects(resolveSettings({}, { ...env, EMUCTL_MAX_IMPORT_EXPANDED_BYTES: 'lots' }), /EMUCTL_MAX_IMPORT_EXPANDED_BYTES must be a number/);
    writeFileSync(file, JSON.stringify({ max_import_entries: 0 }));
    await assert.rejects(resolveSettings({ config: file }, { EMUCTL_HOME: importHome }), /config file: max_import_entries must be at least 1/);
  });

  it('vpcs_unconfined: off by default; env > file, and only true/false in the file', async () => {
    const vpcsHome = mkdtempSync(join(tmpdir(), 'emuctl-settings-'));
    const file = join(vpcsHome, 'daemon.json');
    assert.equal((await resolveSettings({}, { EMUCTL_HOME: vpcsHome })).vpcsUnconfined, false);
    writeFileSync(file, JSON.stringify({ vpcs_unconfined: true }));
    const fromFile = await resolveSettings({}, { EMUCTL_HOME: vpcsHome });
    assert.equal(fromFile.vpcsUnconfined, true);
    assert.equal(fromFile.sources.vpcsUnconfined, 'file');
    assert.equal((await resolveSettings({}, { EMUCTL_HOME: vpcsHome, EMUCTL_VPCS_UNCONFINED: '0' })).vpcsUnconfined, false);
    writeFileSync(file, JSON.stringify({ vpcs_unconfined: 'yes' }));
    await assert.rejects(resolveSettings({}, { EMUCTL_HOME: vpcsHome }), /config file: vpcs_unconfined must be true or false/);
    rmSync(vpcsHome, { recursive: true, force: true });
  });

  it('docker_unsafe_caps off and docker_registries empty by default; env > file; a registry is host or host:port', async () => {
    const dockerHome = mkdtempSync(join(tmpdir(), 'emuctl-settings-'));
    const file = join(dockerHome, 'daemon.json');
    const defaults = await resolveSettings({}, { EMUCTL_HOME: dockerHome });
    assert.deepEqual([defaults.dockerUnsafeCaps, defaults.dockerRegistries], [false, []]);
    writeFileSync(file, JSON.stringify({ docker_unsafe_caps: true, docker_registries: ['registry.lab:5000', '10.0.0.5'] }));
    const fromFile = await resolveSettings({}, { EMUCTL_HOME: dockerHome });
    assert.deepEqual([fromFile.dockerUnsafeCaps, fromFile.dockerRegistries, fromFile.sources.dockerRegistries], [true, ['registry.lab:5000', '10.0.0.5'], 'file']);
    const fromEnv = await resolveSettings({}, { EMUCTL_HOME: dockerHome, EMUCTL_DOCKER_UNSAFE_CAPS: '0', EMUCTL_DOCKER_REGISTRIES: 'localhost:5000, ghcr.io' });
    assert.deepEqual([fromEnv.dockerUnsafeCaps, fromEnv.dockerRegistries], [false, ['localhost:5000', 'ghcr.io']]);
    for (const bad of ['http://reg:5000', 'reg:5000/path', 'Reg.Lab', '*']) {
      await assert.rejects(resolveSettings({}, { EMUCTL_HOME: dockerHome, EMUCTL_DOCKER_REGISTRIES: bad }), /EMUCTL_DOCKER_REGISTRIES: .* is not a registry/, bad);
    }
    rmSync(dockerHome, { recursive: true, force: true });
  });
});
