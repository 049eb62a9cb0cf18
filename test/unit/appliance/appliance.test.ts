// The appliance modules (src/appliance/): every schema feature of the fixtures the project wrote,
// the version plan against a compute's facts, and the template GNS3's GUI would make.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { kvmMode, propertiesFor, resolveVersions } from '../../../src/appliance/appliance.js';
import { planAppliance, type ComputeFacts } from '../../../src/appliance/plan.js';
import { ApplianceFormatError, parseAppliance } from '../../../src/appliance/schema.js';
import { applianceTemplate, listedSymbol } from '../../../src/appliance/template.js';
import { DEFAULT_SYMBOLS } from '../../../src/daemon/controller/symbols.js';

const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/appliances/', import.meta.url));
const MD5A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const MD5B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const fixture = (name: string) =>
  readFileSync(`${FIXTURES}${name}`, 'utf8').replaceAll('__MD5B__', MD5B).replaceAll('__SIZEB__', '2048').replaceAll('__MD5__', MD5A).replaceAll('__SIZE__', '1024').replaceAll('__IMAGE__', 'emuctl-test/host:1');
const facts = (over: Partial<ComputeFacts> = {}): ComputeFacts => ({ computeId: 'local', images: [], kvm: [], dockerImages: [], ...over });
/** A controller with every symbol and GNS3's classic defaults. */
const all = { exists: () => true, defaults: DEFAULT_SYMBOLS.Classic };

describe('appliance files', () => {
  it('registry 4: versions resolve to their images, with md5 and size', () => {
    const file = parseAppliance(fixture('tiny-linux.gns3a'));
    assert.equal(file.emulator, 'qemu');
    const versions = resolveVersions(file);
    assert.deepEqual(versions.map((v) => [v.name, v.images.map((i) => [i.slot, i.filename, i.image.md5sum, i.image.filesize])]), [
      ['2.0', [['hda_disk_image', 'tiny-linux-2.0.qcow2', MD5A, 1024]]],
      ['1.0', [['hda_disk_image', 'tiny-linux-1.0.qcow2', '0123456789abcdef0123456789abcdef', 1048576]]],
    ]);
  });

  it('a version is installable only when the compute has its image by name and md5', () => {
    const file = parseAppliance(fixture('tiny-linux.gns3a'));
    const image = { filename: 'tiny-linux-2.0.qcow2', path: 'tiny-linux-2.0.qcow2', filesize: 1024, md5sum: MD5A };
    const plans = planAppliance(file, facts({ images: [image] }));
    assert.deepEqual(plans.map((p) => p.problems.length === 0), [true, false]);
    assert.match(plans[1].problems[0], /tiny-linux-1\.0\.qcow2 \(md5 0123456789abcdef0123456789abcdef, 1048576 bytes\) is missing/);
    const wrong = planAppliance(file, facts({ images: [{ ...image, md5sum: MD5B }] }));
    assert.equal(wrong[0].matches[0].state, 'md5-differs');
    const renamed = planAppliance(file, facts({ images: [{ ...image, filename: 'other.qcow2', path: 'sub/other.qcow2' }] }));
    assert.deepEqual(renamed[0].matches[0], { state: 'present', need: renamed[0].matches[0].need, path: 'sub/other.qcow2' });
  });

  it('several disks, kvm disable and multilayer_switch: the template GNS3\'s GUI makes', () => {
    const file = parseAppliance(fixture('two-disks.gns3a'));
    const images = [
      { filename: 'boot-1.qcow2', path: 'boot-1.qcow2', filesize: 1024, md5sum: MD5A },
      { filename: 'data-1.qcow2', path: 'data-1.qcow2', filesize: 2048, md5sum: MD5B },
    ];
    const [plan] = planAppliance(file, facts({ images }));
    assert.deepEqual(plan.problems, []);
    const template = applianceTemplate(file, plan.version, plan.matches, 'local', all);
    assert.deepEqual(template, {
      compute_id: 'local', name: 'Two Disk Router 1', category: 'switch', symbol: ':/symbols/classic/multilayer_switch.svg', template_type: 'qemu',
      adapter_type: 'e1000', adapters: 4, ram: 128, hda_disk_interface: 'ide', hdb_disk_interface: 'ide', console_type: 'telnet',
      options: '-nographic -machine accel=tcg', hda_disk_image: 'boot-1.qcow2', hdb_disk_image: 'data-1.qcow2', qemu_path: 'qemu-system-i386',
      first_port_name: 'mgmt0', port_name_format: 'ge-0/0/{0}', linked_clone: true,
    });
  });

  it('kvm: require is a problem on a compute without KVM for the arch, none with it', () => {
    const file = parseAppliance(fixture('kvm-only.gns3a'));
    const images = [{ filename: 'fastfw.qcow2', path: 'fastfw.qcow2', filesize: 1024, md5sum: MD5A }];
    const [without] = planAppliance(file, facts({ images }));
    assert.equal(without.kvm, 'require');
    assert.deepEqual(without.problems, ['Fast Firewall 7 requires KVM for x86_64 (kvm: require) and compute local has no KVM']);
    assert.deepEqual(planAppliance(file, facts({ images, kvm: ['x86_64', 'i386'] }))[0].problems, []);
    // Its own symbol is not on the controller: the category's, as GNS3's GUI falls back.
    const template = applianceTemplate(file, without.version, without.matches, 'local', { exists: (id: string) => id.startsWith(':/'), defaults: DEFAULT_SYMBOLS.Classic });
    assert.equal(template.symbol, ':/symbols/firewall.svg');
  });

  it('docker: one version named after the image, no image file, the docker template', () => {
    const file = parseAppliance(fixture('docker-host.gns3a'));
    const [plan] = planAppliance(file, facts({ dockerImages: ['emuctl-test/host:1'] }));
    assert.equal(plan.version.name, 'emuctl-test/host:1');
    assert.equal(plan.dockerImagePresent, true);
    assert.deepEqual(applianceTemplate(file, plan.version, plan.matches, 'local', all), {
      compute_id: 'local', name: 'Test Host', usage: 'A shell on the console.', category: 'guest', symbol: ':/symbols/classic/docker_guest.svg', template_type: 'docker',
      adapters: 2, image: 'emuctl-test/host:1', console_type: 'telnet', environment: 'ROLE=test',
    });
  });

  it('registry 8: settings sets, inherited or not, checksum as md5, -cpu host needing KVM', () => {
    const file = parseAppliance(fixture('settings-v8.gns3a'));
    assert.equal(file.images[0].md5sum, '0123456789abcdef0123456789abcdef');
    assert.deepEqual(propertiesFor(file, 'big'), { adapter_type: 'virtio-net-pci', adapters: 3, ram: 1024, cpus: 2, platform: 'x86_64', console_type: 'telnet', hda_disk_interface: 'virtio' });
    assert.deepEqual(propertiesFor(file, 'fast'), { ram: 512, platform: 'x86_64', options: '-cpu host' });
    const versions = resolveVersions(file);
    assert.deepEqual(versions.map((v) => kvmMode(file, v.properties)), ['allow', 'allow', 'require']);
    const big = versions[1];
    const template = applianceTemplate(file, big, [{ state: 'present', need: big.images[0], path: 'eight-3.qcow2' }], 'local', all);
    assert.equal(template.name, 'Eight Router 3 big');
    assert.equal(template.usage, 'The big one.');
    assert.equal(template.ram, 1024);
    assert.equal(template.qemu_path, 'qemu-system-x86_64');
    assert.equal(template.hda_disk_image, 'eight-3.qcow2');
  });

  it('the listed symbol is GNS3\'s: a file\'s own kept, none or a GNS3 one replaced by the theme\'s default for the role', () => {
    const defaults = DEFAULT_SYMBOLS.Classic;
    assert.equal(listedSymbol(parseAppliance(fixture('kvm-only.gns3a')), defaults), 'fast-firewall-logo.svg');
    assert.equal(listedSymbol(parseAppliance(fixture('two-disks.gns3a')), defaults), ':/symbols/classic/multilayer_switch.svg');
    assert.equal(listedSymbol(parseAppliance(fixture('tiny-linux.gns3a')), defaults), ':/symbols/classic/qemu_guest.svg');
    assert.equal(listedSymbol(parseAppliance(fixture('settings-v8.gns3a')), defaults), ':/symbols/classic/router.svg');
    assert.equal(listedSymbol(parseAppliance(fixture('tiny-linux.gns3a')), {}), undefined, 'no theme default: nothing listed, the GUI falls back');
  });

  it('a compute that runs no node of the appliance\'s emulator cannot install it', () => {
    const file = parseAppliance(fixture('docker-host.gns3a'));
    assert.deepEqual(planAppliance(file, facts({ nodeTypes: ['vpcs', 'qemu'] }))[0].problems, ['compute local runs no docker nodes (its node types: vpcs, qemu)']);
    assert.deepEqual(planAppliance(file, facts({ nodeTypes: ['vpcs', 'docker'] }))[0].problems, []);
  });

  it('dynamips: parsed, every version has the unsupported-emulator problem', () => {
    const file = parseAppliance(fixture('dynamips-router.gns3a'));
    assert.equal(file.emulator, 'dynamips');
    const [plan] = planAppliance(file, facts());
    assert.match(plan.problems[0], /dynamips appliance: emuctl does not support dynamips nodes/);
  });

  it('a bad md5, a malformed file, unsafe names and other versions are format errors', () => {
    assert.throws(() => parseAppliance(fixture('bad-md5.gns3a')), (err: Error) => err instanceof ApplianceFormatError && /md5sum "not-an-md5" is not an MD5/.test(err.message));
    assert.throws(() => parseAppliance(fixture('malformed.gns3a')), /not JSON/);
    const tiny = JSON.parse(fixture('tiny-linux.gns3a'));
    const withName = (filename: string) => JSON.stringify({ ...tiny, images: [{ ...tiny.images[0], filename }] });
    for (const name of ['../etc/passwd', '/abs.qcow2', 'a\\b.qcow2', 'nul\0.qcow2']) assert.throws(() => parseAppliance(withName(name)), /not a plain file name/);
    assert.throws(() => parseAppliance(JSON.stringify({ ...tiny, registry_version: 9 })), /registry_version 9 is not one emuctl reads \(4 to 8\)/);
    assert.throws(() => parseAppliance(JSON.stringify({ ...tiny, docker: { image: 'x', adapters: 1 } })), /several emulator sections/);
    assert.throws(() => parseAppliance(JSON.stringify({ ...tiny, category: 'toaster' })), /category must be one of/);
  });

  it('a version naming an image the file does not list is broken, the file still reads', () => {
    const tiny = JSON.parse(fixture('tiny-linux.gns3a'));
    const file = parseAppliance(JSON.stringify({ ...tiny, versions: [{ name: 'x', images: { hda_disk_image: 'nowhere.qcow2' } }] }));
    assert.match(planAppliance(file, facts())[0].problems[0], /names nowhere\.qcow2, which the file's images list does not hold/);
  });
});
