// appliance check and appliance install against a real daemon: exit codes 0/1/2, a QEMU
// appliance installed with a small disk the test makes and started under TCG, a docker
// appliance installed with the emuctl-test/host image and started, the refusals (missing
// image, KVM required, dynamips) creating nothing, and GET /v2/appliances from appliances_dir.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { testImage } from '../helpers/docker-images.js';
import { runInProcess, startCliDaemon, stopCliDaemon, type CliDaemon } from './helpers/cli.js';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/appliances/', import.meta.url));
const md5 = (file: string) => createHash('md5').update(readFileSync(file)).digest('hex');

describe('appliance check and install', () => {
  let d: CliDaemon;
  let hostImage: string;
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-cli-appliance-'));
  const catalog = join(tmp, 'appliances');
  const cli = (...argv: string[]) => runInProcess(argv, d.env);
  const projects: string[] = [];
  /** A fixture with its placeholders filled, written to the temp dir. */
  const write = (name: string, fill: Record<string, string>, dir = tmp) => {
    let text = readFileSync(join(FIXTURES, name), 'utf8');
    for (const [key, value] of Object.entries(fill)) text = text.replaceAll(key, value);
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const templates = async () => (await d.daemon.api('GET', '/v2/templates')).body.filter((t: any) => !t.builtin);
  /** A project with one node made from the template, started; its status after the start. */
  const startFromTemplate = async (templateId: string) => {
    const project = await d.daemon.api('POST', '/v2/projects', { name: `appliance-${projects.length}-${process.pid}` });
    assert.equal(project.status, 201, project.text);
    projects.push(project.body.project_id);
    const node = await d.daemon.api('POST', `/v2/projects/${project.body.project_id}/templates/${templateId}`, { x: 0, y: 0 });
    assert.equal(node.status, 201, node.text);
    const started = await d.daemon.api('POST', `/v2/projects/${project.body.project_id}/nodes/${node.body.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    const now = await d.daemon.api('GET', `/v2/projects/${project.body.project_id}/nodes/${node.body.node_id}`);
    return { project: project.body.project_id, node: now.body };
  };

  let disk: string;
  let tiny: string;
  before(async () => {
    hostImage = await testImage('host');
    mkdirSync(catalog);
    disk = join(tmp, 'tiny-linux-2.0.qcow2');
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', disk, '1M']);
    const fill = { __MD5__: md5(disk), __SIZE__: String(statSync(disk).size), __IMAGE__: hostImage };
    tiny = write('tiny-linux.gns3a', fill);
    write('kvm-only.gns3a', fill);
    write('docker-host.gns3a', fill);
    for (const name of ['tiny-linux.gns3a', 'docker-host.gns3a', 'broken-status.gns3a', 'malformed.gns3a']) write(name, fill, catalog);
    d = await startCliDaemon({ env: { EMUCTL_QEMU_ACCEL: 'tcg', EMUCTL_APPLIANCES_DIR: catalog, EMUCTL_UDP_PORT_RANGE: '21000-21099', EMUCTL_CONSOLE_PORT_RANGE: '28500-28519' } });
  });
  after(async () => {
    for (const id of projects) await d?.daemon.api('DELETE', `/v2/projects/${id}`).catch(() => undefined);
    await stopCliDaemon(d);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('check: exit 2 for a file that is not an appliance, one line on stderr', async () => {
    for (const name of ['malformed.gns3a', 'bad-md5.gns3a']) {
      const r = await cli('appliance', 'check', join(FIXTURES, name));
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /is not a valid appliance: /);
    }
  });

  it('check: exit 1 while the image is missing (named with md5 and size), exit 0 once uploaded', async () => {
    const missing = await cli('appliance', 'check', tiny);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stdout, /version 2\.0: not installable/);
    assert.match(missing.stdout, new RegExp(`hda_disk_image tiny-linux-2\\.0\\.qcow2  md5 ${md5(disk)}  \\d+ bytes  missing`));
    const install = await cli('appliance', 'install', tiny, '--appliance-version', '2.0');
    assert.equal(install.code, 1);
    assert.match(install.stderr, new RegExp(`image tiny-linux-2\\.0\\.qcow2 \\(md5 ${md5(disk)}, \\d+ bytes\\) is missing`));
    assert.deepEqual(await templates(), [], 'nothing created');

    const up = await cli('image', 'upload', disk);
    assert.equal(up.code, 0, up.stderr);
    const ok = await cli('appliance', 'check', tiny, '--json');
    assert.equal(ok.code, 0, ok.stderr);
    const plan = JSON.parse(ok.stdout);
    assert.deepEqual(plan.versions.map((v: any) => [v.name, v.installable]), [['2.0', true], ['1.0', false]]);
    assert.equal(plan.versions[0].images[0].state, 'present');
  });

  it('install: a QEMU appliance with several versions needs --appliance-version; the template starts under TCG', async () => {
    const ambiguous = await cli('appliance', 'install', tiny);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /choose one with --appliance-version \(installable here: 2\.0\)/);
    const r = await cli('appliance', 'install', tiny, '--appliance-version', '2.0', '--json');
    assert.equal(r.code, 0, r.stderr);
    const template = JSON.parse(r.stdout);
    assert.equal(template.name, 'Tiny Linux 2.0');
    assert.equal(template.template_type, 'qemu');
    assert.equal(template.hda_disk_image, 'tiny-linux-2.0.qcow2');
    assert.equal(template.qemu_path, 'qemu-system-x86_64');
    assert.equal(template.usage, 'Log in as root, no password.');
    assert.equal(template.symbol, ':/symbols/classic/qemu_guest.svg', 'the symbol GNS3 lists the appliance with, as the GUI installs it');
    assert.deepEqual([template.adapters, template.adapter_type, template.ram, template.port_name_format], [2, 'virtio-net-pci', 96, 'eth{0}']);
    const symbol = await d.daemon.api('GET', `/v2/symbols/${encodeURIComponent(template.symbol)}/raw`);
    assert.equal(symbol.status, 200);
    const { node } = await startFromTemplate(template.template_id);
    assert.equal(node.status, 'started');
    assert.deepEqual(node.ports.map((p: any) => p.name), ['eth0', 'eth1']);
  });

  it('install: kvm: require on a compute without KVM is a 409 naming the reason; nothing created', async () => {
    const caps = await d.daemon.api('GET', '/v2/computes/local/qemu/capabilities');
    assert.deepEqual(caps.body, { kvm: [] }, 'qemu_accel tcg: no KVM reported');
    const before = (await templates()).length;
    const r = await cli('appliance', 'install', join(tmp, 'kvm-only.gns3a'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^emuctl: cannot install Fast Firewall 7: Fast Firewall 7 requires KVM for x86_64 \(kvm: require\) and compute local has no KVM\n$/);
    assert.equal((await templates()).length, before);
  });

  it('install: a dynamips appliance is one line saying the kind is not supported, exit 1', async () => {
    const r = await cli('appliance', 'install', join(FIXTURES, 'dynamips-router.gns3a'));
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'emuctl: Old Router is a dynamips appliance: emuctl does not support dynamips nodes (it installs docker and QEMU appliances)\n');
    const check = await cli('appliance', 'check', join(FIXTURES, 'dynamips-router.gns3a'));
    assert.equal(check.code, 1);
  });

  it('install: a docker appliance makes the docker template, and its node starts', async () => {
    const check = await cli('appliance', 'check', join(tmp, 'docker-host.gns3a'));
    assert.equal(check.code, 0, check.stderr);
    assert.match(check.stdout, new RegExp(`docker image ${hostImage.replace(/[.:/]/g, '\\$&')}: present`));
    const r = await cli('appliance', 'install', join(tmp, 'docker-host.gns3a'), '--json');
    assert.equal(r.code, 0, r.stderr);
    const template = JSON.parse(r.stdout);
    assert.deepEqual([template.name, template.template_type, template.image, template.adapters, template.symbol, template.category], ['Test Host', 'docker', hostImage, 2, ':/symbols/classic/docker_guest.svg', 'guest']);
    assert.equal(template.environment, 'ROLE=test');
    const { node } = await startFromTemplate(template.template_id);
    assert.equal(node.status, 'started');
    assert.equal(node.symbol, ':/symbols/classic/docker_guest.svg');
  });

  it('GET /v2/appliances lists appliances_dir in GNS3\'s shape: broken and unreadable files left out', async () => {
    const r = await d.daemon.api('GET', '/v2/appliances');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.map((a: any) => a.name).sort(), ['Test Host', 'Tiny Linux']);
    const tinyEntry = r.body.find((a: any) => a.name === 'Tiny Linux');
    assert.equal(tinyEntry.builtin, false);
    assert.equal(tinyEntry.appliance_id, undefined);
    assert.equal(tinyEntry.symbol, ':/symbols/classic/qemu_guest.svg');
    assert.deepEqual(tinyEntry.versions.map((v: any) => v.name), ['2.0', '1.0']);
    assert.equal(r.body.find((a: any) => a.name === 'Test Host').symbol, ':/symbols/classic/docker_guest.svg');
  });
});
