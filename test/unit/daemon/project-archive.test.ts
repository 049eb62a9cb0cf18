import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { archiveTopology, isExportable } from '../../../src/daemon/controller/project-archive.js';
import { ControllerNodeTypes } from '../../../src/daemon/controller/node-types.js';
import yauzl from 'yauzl';
import { EntryChecks, safeEntryName } from '../../../src/daemon/controller/archive-entries.js';
import { RATIO_FREE_BYTES } from '../../../src/daemon/controller/import-limits.js';
import { InvalidError, PayloadTooLargeError } from '../../../src/daemon/errors.js';

/** The node types of the daemon's own kinds. */
const TYPES = new ControllerNodeTypes();

describe('project archives (GNS3 2.2 .gns3project)', () => {
  it('exports project files, not the .gns3, captures, temporary files, logs or (unless asked) snapshots', () => {
    const yes = ['project-files/vpcs/1/startup.vpc', 'README.txt', 'project-files/qemu/2/hda_disk.qcow2'];
    const no = ['lab.gns3', 'project-files/captures/a.pcap', 'project-files/tmp/x', 'project-files/vpcs/1/vpcs.log', 'x_log.txt', '.DS_Store', 'snapshots/s_010126_101010.gns3project', '.lab.gns3.123.abc.tmp', 'project-files/emuctl-running.json', 'upload.part'];
    for (const path of yes) assert.ok(isExportable(path, false), path);
    for (const path of no) assert.ok(!isExportable(path, false), path);
    assert.ok(isExportable('snapshots/s_010126_101010.gns3project', true));
  });

  it('a portable topology runs every node on local, drops the computes and, when asked, the MACs', () => {
    const topology = {
      name: 'lab',
      topology: {
        computes: [{ compute_id: 'c1', password: 'secret' }],
        nodes: [{ node_id: 'a', compute_id: 'c1', properties: { mac_address: '00:50:79:66:68:01', hda_disk_image: '/images/qemu/disk.qcow2' } }],
      },
    };
    const portable = archiveTopology(topology, { keepComputeId: false, resetMacAddresses: true }, TYPES) as any;
    assert.equal(portable.topology.nodes[0].compute_id, 'local');
    assert.deepEqual(portable.topology.computes, []);
    assert.equal(portable.topology.nodes[0].properties.mac_address, null);
    assert.equal(portable.topology.nodes[0].properties.hda_disk_image, 'disk.qcow2');
    assert.equal(topology.topology.nodes[0].compute_id, 'c1', 'the project itself is untouched');
    const kept = archiveTopology(topology, { keepComputeId: true, resetMacAddresses: false }, TYPES) as any;
    assert.equal(kept.topology.nodes[0].compute_id, 'c1');
    assert.equal(kept.topology.computes.length, 1);
    assert.equal(kept.topology.nodes[0].properties.mac_address, '00:50:79:66:68:01');
  });

  it('a docker node goes to GNS3 as GNS3 takes it: its image reference whole (not a file name), without the capability extensions GNS3\'s schema refuses', () => {
    const topology = { topology: { computes: [], nodes: [{ node_type: 'docker', compute_id: 'local', properties: { image: 'registry.example:5000/team/frr:8.4', cap_add: ['NET_ADMIN'], privileged: false, adapters: 2 } }] } };
    assert.deepEqual((archiveTopology(topology, { keepComputeId: false, resetMacAddresses: false }, TYPES) as any).topology.nodes[0].properties, { image: 'registry.example:5000/team/frr:8.4', adapters: 2 });
    const snapshot = (archiveTopology(topology, { keepComputeId: true, resetMacAddresses: false }, TYPES) as any).topology.nodes[0].properties;
    assert.deepEqual(snapshot.cap_add, ['NET_ADMIN'], 'snapshots keep them');
  });

  it("a VPCS's MAC (an emuctl extension GNS3's VPCS schema refuses) stays out of portable archives, not out of snapshots", () => {
    const topology = { topology: { computes: [], nodes: [{ node_type: 'vpcs', compute_id: 'local', properties: { mac_address: '00:50:79:66:68:07' } }] } };
    assert.deepEqual((archiveTopology(topology, { keepComputeId: false, resetMacAddresses: false }, TYPES) as any).topology.nodes[0].properties, {});
    assert.equal((archiveTopology(topology, { keepComputeId: true, resetMacAddresses: false }, TYPES) as any).topology.nodes[0].properties.mac_address, '00:50:79:66:68:07');
    assert.equal((archiveTopology(topology, { keepComputeId: true, resetMacAddresses: true }, TYPES) as any).topology.nodes[0].properties.mac_address, null);
  });

  it('archive entry names stay inside the project (zip-slip refused)', () => {
    assert.equal(safeEntryName('project-files/vpcs/x/startup.vpc'), 'project-files/vpcs/x/startup.vpc');
    assert.equal(safeEntryName('project-files\\vpcs\\x\\startup.vpc'), 'project-files/vpcs/x/startup.vpc', 'Windows separators');
    assert.equal(safeEntryName('./a//b/'), 'a/b/');
    for (const bad of ['../evil', 'a/../../evil', '/etc/passwd', 'C:/Windows/evil', '..\\evil', 'a\0b']) assert.throws(() => safeEntryName(bad), InvalidError, bad);
  });

  it('entries are checked before extraction: clashes by name, case or Unicode form, file against directory, links, encryption, sizes', () => {
    const limits = { entries: { value: 10, setting: 'max_import_entries', unit: 'entries' as const }, expandedBytes: { value: 100, setting: 'max_import_expanded_bytes', unit: 'bytes' as const }, ratio: { value: 100, setting: 'max_import_ratio', unit: 'to 1' as const } };
    const entry = (name: string, more: Partial<{ size: number; mode: number; flags: number; method: number }> = {}) => Object.assign(new yauzl.Entry(), {
      generalPurposeBitFlag: 0x800 | (more.flags ?? 0), fileNameRaw: Buffer.from(name), extraFieldRaw: Buffer.alloc(0), extraFields: [], externalFileAttributes: ((more.mode ?? 0o100644) << 16) >>> 0,
      compressionMethod: more.method ?? 0, uncompressedSize: more.size ?? 1, compressedSize: more.size ?? 1,
    });
    const refused = (names: Parameters<typeof entry>[], pattern: RegExp, type: Function = InvalidError) => {
      const checks = new EntryChecks('/projects/p', limits, 1000);
      assert.throws(() => names.forEach((args) => checks.check(entry(...args))), (err: Error) => err instanceof type && pattern.test(err.message), names.map((n) => n[0]).join(', '));
    };
    const fine = new EntryChecks('/projects/p', limits, 1000);
    for (const name of ['project.gns3', 'a/', 'a/b.txt', 'a/c/', 'a/c/d', './', 'A2']) fine.check(entry(name, { size: name.endsWith('/') ? 0 : 1 }));
    const kept = fine.check(entry('kept.txt'))!.entry;
    assert.deepEqual([kept.fileNameRaw, kept.extraFieldRaw, kept.fileCommentRaw], [undefined, undefined, undefined], 'no buffer of the central directory kept');
    assert.equal(kept.isEncrypted(), false);
    refused([['a'], ['a']], /clashes with the entry 'a'/);
    refused([['Readme'], ['README']], /differing only by case/);
    refused([['caf\u00e9'], ['cafe\u0301']], /Unicode form/);
    refused([['a'], ['a/b']], /goes inside the entry 'a', which is a file/);
    refused([['a/b'], ['a']], /clashes with the entry 'a\/b'/);
    refused([['a', { size: 1 }], ['a/', { size: 0 }]], /is a directory where the entry 'a' is a file/);
    refused([['d/', { size: 3 }]], /is a directory with data/);
    refused([['link', { mode: 0o120777 }]], /symbolic link/);
    refused([['secret', { flags: 1 }]], /encrypted/);
    refused([['x.bz2', { method: 12 }]], /compression method 12/);
    refused([['a', { size: 60 }], ['b', { size: 41 }]], /max_import_expanded_bytes \(100 bytes\)/, PayloadTooLargeError);
  });

  it('past RATIO_FREE_BYTES, an entry and the whole archive expand to at most max_import_ratio times their compressed size', () => {
    const limits = { entries: { value: 10, setting: 'max_import_entries', unit: 'entries' as const }, expandedBytes: { value: 2 ** 40, setting: 'max_import_expanded_bytes', unit: 'bytes' as const }, ratio: { value: 100, setting: 'max_import_ratio', unit: 'to 1' as const } };
    const entry = (name: string, uncompressedSize: number, compressedSize: number) => Object.assign(new yauzl.Entry(), {
      generalPurposeBitFlag: 0x800, fileNameRaw: Buffer.from(name), extraFieldRaw: Buffer.alloc(0), extraFields: [], externalFileAttributes: (0o100644 << 16) >>> 0,
      compressionMethod: 8, uncompressedSize, compressedSize,
    });
    const MiB = 1024 ** 2;
    // Under RATIO_FREE_BYTES any ratio: a fresh qcow2 (196 KB that deflate to a few hundred bytes), a small zero-filled file.
    const small = new EntryChecks('/projects/p', limits, 2 * MiB);
    small.check(entry('fresh.qcow2', 196_616, 600));
    small.check(entry('zeros.bin', RATIO_FREE_BYTES, RATIO_FREE_BYTES / 1000));
    // A real disk image deflates some 2.5 to 1: a 4 GiB one passes.
    new EntryChecks('/projects/p', limits, 1700 * MiB).check(entry('hda_disk.qcow2', 4096 * MiB, 1600 * MiB));
    // One entry past the ratio, hidden behind a large incompressible one so that the archive as a whole stays under it.
    const hidden = new EntryChecks('/projects/p', limits, 10 * MiB);
    hidden.check(entry('random.bin', 8 * MiB, 8 * MiB));
    assert.throws(() => hidden.check(entry('bomb.bin', 900 * MiB, 2 * MiB)), (err: Error) => err instanceof PayloadTooLargeError && /Archive entry 'bomb\.bin' \(943718400 bytes from 2097152, 450 to 1\) is over max_import_ratio \(100 to 1\)/.test(err.message));
    // Many entries under the floor each, or entries that share one compressed stream: the archive file's own size counts.
    const many = new EntryChecks('/projects/p', limits, MiB);
    assert.throws(() => { for (let i = 0; i < 10; i++) many.check(entry(`part${i}`, 100 * MiB, 100 * MiB / 120)); }, (err: Error) => err instanceof PayloadTooLargeError && /The archive \(\d+ bytes once extracted from 1048576, \d+ to 1\) is over max_import_ratio \(100 to 1\)/.test(err.message));
  });
});
