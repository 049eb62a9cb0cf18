import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemons, type TestDaemon } from '../helpers/daemon.js';
import { createProject } from '../helpers/lab.js';
import { rawZip, type RawEntry } from '../helpers/raw-zip.js';

const MiB = 1024 * 1024;
const LIMITS = { EMUCTL_MAX_IMPORT_BYTES: String(12 * MiB), EMUCTL_MAX_IMPORT_EXPANDED_BYTES: String(4 * MiB), EMUCTL_MAX_IMPORT_ENTRIES: '1000', EMUCTL_MAX_IMAGE_BYTES: String(MiB) };

/** A valid project.gns3 entry. */
const topology = (name = 'lab'): RawEntry => ({
  name: 'project.gns3',
  data: JSON.stringify({ type: 'topology', name, project_id: randomUUID(), revision: 9, version: '2.2.42', topology: { nodes: [], links: [], drawings: [], computes: [] } }),
});

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** POSTs raw bytes (or a stream of them, chunked) and reads the JSON answer. */
async function post(url: string, body: Uint8Array | ReadableStream<Uint8Array>): Promise<Answer> {
  const r = await fetch(url, { method: 'POST', body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

/** `total` bytes as a chunked stream of 1 MiB pieces. */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const piece = Math.min(MiB, total - sent);
      sent += piece;
      controller.enqueue(new Uint8Array(piece));
    },
  });
}

/** An error answer as the API contract has it: JSON `{message, status}`. */
function assertRefused(r: Answer, status: number, message: RegExp, what: string): void {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  assert.equal(r.body?.status, status, `${what}: ${r.text}`);
  assert.match(r.body?.message, message, what);
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A daemon whose temporary directory (TMPDIR) is one of the test's, so that spooled uploads can be seen. */
async function daemonsWithSpool(root: string, envs: Record<string, Record<string, string>>): Promise<{ d: TestDaemon; spool: string; projects: string }[]> {
  const made = Object.entries(envs).map(([name, env]) => {
    const home = join(root, name);
    const spool = join(root, `${name}-tmp`);
    mkdirSync(home);
    mkdirSync(spool);
    return { home, spool, env: { TMPDIR: spool, ...env } };
  });
  // Started at the same time; if one fails, the others are stopped.
  const daemons = await startTestDaemons(...made.map(({ home, env }) => ({ home, env })));
  return made.map(({ home, spool }, i) => ({ d: daemons[i], spool, projects: join(home, 'projects') }));
}

describe('imported archives cannot exhaust the machine; malformed archives and names are a 400', () => {
  const root = mkdtempSync(join(tmpdir(), 'emuctl-archive-limits-'));
  let limited: { d: TestDaemon; spool: string; projects: string };
  let defaults: { d: TestDaemon; spool: string; projects: string };

  const importUrl = (d: TestDaemon, id = randomUUID()) => `${d.url}/v2/projects/${id}/import`;
  /** The projects directory and the spool directory hold nothing new after `fn`. */
  const leavesNothing = async (at: typeof limited, fn: () => Promise<void>) => {
    const before = readdirSync(at.projects).sort();
    await fn();
    assert.deepEqual(readdirSync(at.projects).sort(), before, 'nothing new in the projects directory');
    assert.deepEqual(readdirSync(at.spool), [], 'nothing left in the temporary directory');
  };

  before(async () => {
    [limited, defaults] = await daemonsWithSpool(root, { limited: LIMITS, defaults: {} });
  });
  after(async () => {
    await Promise.all([limited?.d.stop(), defaults?.d.stop()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('an upload over max_import_bytes is a 413 naming the limit, whether declared or found while streaming, and nothing is spooled', async () => {
    await leavesNothing(limited, async () => {
      const declared = await post(importUrl(limited.d), new Uint8Array(13 * MiB));
      assertRefused(declared, 413, /max_import_bytes \(12582912 bytes\)/, 'Content-Length over the limit');
      const streamed = await post(importUrl(limited.d), chunked(13 * MiB));
      assertRefused(streamed, 413, /max_import_bytes \(12582912 bytes\)/, 'chunked upload over the limit');
    });
  });

  it('without max_import_bytes, a declared size over what the temporary directory can spare (or 4 GiB) is a 413 before any byte is read', async () => {
    let answered: ClientRequest | undefined;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(importUrl(defaults.d), { method: 'POST', headers: { 'Content-Length': String(2 ** 50) } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
      answered = req;
    });
    answered?.destroy();
    assert.equal(answer.status, 413, answer.body);
    assert.match(JSON.parse(answer.body).message, /max_import_bytes \(\d+ bytes: (the default|what the temporary directory can spare)\)/);
    assert.deepEqual(readdirSync(defaults.spool), []);
  });

  it('a client that goes away mid-upload leaves no spool file, and the daemon goes on', async () => {
    const req = request(importUrl(limited.d), { method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } });
    req.on('error', () => {});
    req.write(Buffer.alloc(2 * MiB));
    await until(() => readdirSync(limited.spool).length > 0, 'the upload to be spooled');
    req.destroy();
    await until(() => readdirSync(limited.spool).length === 0, 'the spool file to be removed');
    assert.equal((await limited.d.api('GET', '/v2/version')).status, 200);
  });

  it('an archive expanding over max_import_expanded_bytes is a 413 before anything is extracted: a high-ratio entry, entries adding up, a ZIP64 entry declaring a terabyte', async () => {
    await leavesNothing(limited, async () => {
      const bomb = rawZip([topology(), { name: 'project-files/zeros.bin', data: Buffer.alloc(5 * MiB), deflate: true }]);
      assert.ok(bomb.length < 64 * 1024, 'a high-ratio entry');
      assertRefused(await post(importUrl(limited.d), bomb), 413, /max_import_expanded_bytes \(4194304 bytes\)/, 'one high-ratio entry');
      const many = rawZip([topology(), ...Array.from({ length: 5 }, (_, i) => ({ name: `f${i}.bin`, data: Buffer.alloc(MiB), deflate: true }))]);
      assertRefused(await post(importUrl(limited.d), many), 413, /max_import_expanded_bytes/, 'several entries adding up');
      const zip64 = rawZip([topology(), { name: 'huge.bin', data: 'x', deflate: true, declaredSize: 2 ** 40 }], { zip64: true });
      assertRefused(await post(importUrl(limited.d), zip64), 413, /max_import_expanded_bytes/, 'a zip64 entry declaring a terabyte');
    });
    // The default is what the projects file system can spare: no disk spares a petabyte.
    await leavesNothing(defaults, async () => {
      const zip64 = rawZip([topology(), { name: 'huge.bin', data: 'x', deflate: true, declaredSize: 2 ** 50 }], { zip64: true });
      assertRefused(await post(importUrl(defaults.d), zip64), 413, /max_import_expanded_bytes \(\d+ bytes: what the projects file system can spare\)/, 'default limit');
    });
  });

  it('a zip bomb past max_import_ratio (100 to 1 beyond 128 MiB) is a 413 before anything is extracted, whatever the free space: one entry, one hidden behind incompressible data, many small ones', { timeout: 120_000 }, async () => {
    const zeros = Buffer.alloc(200 * MiB);
    await leavesNothing(defaults, async () => {
      const bomb = rawZip([topology(), { name: 'project-files/zeros.bin', data: zeros, deflate: true }]);
      assert.ok(bomb.length < 512 * 1024, `${bomb.length} bytes expanding to 200 MiB`);
      assertRefused(await post(importUrl(defaults.d), bomb), 413, /Archive entry 'project-files\/zeros\.bin' \(209715200 bytes from \d+, \d+ to 1\) is over max_import_ratio \(100 to 1\)/, 'one entry');
      // 200 MiB from 3 MiB overall is under 100 to 1: the entry's own ratio gives it away.
      const hidden = rawZip([topology(), { name: 'random.bin', data: randomBytes(3 * MiB) }, { name: 'zeros.bin', data: zeros, deflate: true }]);
      assertRefused(await post(importUrl(defaults.d), hidden), 413, /Archive entry 'zeros\.bin' .* is over max_import_ratio/, 'behind incompressible data');
      const many = rawZip([topology(), ...Array.from({ length: 3 }, (_, i) => ({ name: `part${i}.bin`, data: zeros.subarray(0, 100 * MiB), deflate: true }))]);
      assertRefused(await post(importUrl(defaults.d), many), 413, /The archive \(\d+ bytes once extracted from \d+, \d+ to 1\) is over max_import_ratio \(100 to 1\)/, 'entries under 128 MiB each');
    });
  });

  it('a real project with a 100 MB qcow2 disk holding real data (2.5 to 1) and a fresh, empty one (some 300 to 1, but small) imports', { timeout: 300_000 }, async () => {
    const work = join(root, 'qcow2');
    mkdirSync(work);
    const hda = join(work, 'hda_disk.qcow2');
    const hdb = join(work, 'hdb_disk.qcow2');
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', hda, '100M']);
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', hdb, '100M']);
    // Real data: the node binary's code and data, written as a guest would, in two places of the disk.
    execFileSync('qemu-io', ['-f', 'qcow2', '-c', `write -q -s ${process.execPath} 0 64M`, '-c', `write -q -s ${process.execPath} 72M 24M`, hda]);
    assert.ok(statSync(hda).size > 80 * MiB, `${statSync(hda).size} bytes`);
    const nodeId = randomUUID();
    const node = { node_id: nodeId, node_type: 'qemu', name: 'R1', compute_id: 'local', properties: { hda_disk_image: 'hda_disk.qcow2', hdb_disk_image: 'hdb_disk.qcow2' } };
    const project = { name: 'project.gns3', data: JSON.stringify({ type: 'topology', name: 'disks', project_id: randomUUID(), revision: 9, version: '2.2.42', topology: { nodes: [node], links: [], drawings: [], computes: [] } }) };
    const disks = [hda, hdb].map((file) => ({ name: `project-files/qemu/${nodeId}/${file.split('/').pop()}`, data: readFileSync(file), deflate: true }));
    const archive = rawZip([project, ...disks]);
    const r = await post(importUrl(defaults.d), archive);
    assert.equal(r.status, 201, r.text);
    const [newId] = readdirSync(join(defaults.projects, r.body.project_id, 'project-files', 'qemu'));
    for (const disk of disks) {
      const imported = join(defaults.projects, r.body.project_id, 'project-files', 'qemu', newId, disk.name.split('/').pop()!);
      assert.equal(createHash('sha256').update(readFileSync(imported)).digest('hex'), createHash('sha256').update(disk.data).digest('hex'), disk.name);
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('an entry whose data inflates past the size its header declares is stopped there (400), whatever it would inflate to', async () => {
    await leavesNothing(limited, async () => {
      const liar = rawZip([topology(), { name: 'small.txt', data: Buffer.alloc(64 * MiB), deflate: true, declaredSize: 10 }]);
      assertRefused(await post(importUrl(limited.d), liar), 400, /small\.txt' inflates to another size than its header declares \(10 bytes\)/, 'a lying uncompressed size');
    });
  });

  it('zstd members (GNS3 3.x exports) are held to the same limits: a lying size is stopped at the size declared (400), a zstd bomb is a 413, broken zstd data a 409', { timeout: 120_000 }, async () => {
    await leavesNothing(limited, async () => {
      const liar = rawZip([topology(), { name: 'small.txt', data: Buffer.alloc(64 * MiB), zstd: true, declaredSize: 10 }]);
      assert.ok(liar.length < 64 * 1024, `${liar.length} bytes`);
      assertRefused(await post(importUrl(limited.d), liar), 400, /small\.txt' inflates to another size than its header declares \(10 bytes\)/, 'a lying zstd size');
      const short = rawZip([topology(), { name: 'short.txt', data: 'only this', zstd: true, declaredSize: 1000 }]);
      assertRefused(await post(importUrl(limited.d), short), 400, /short\.txt' inflates to another size than its header declares \(1000 bytes\)/, 'a zstd member shorter than declared');
      const broken = rawZip([topology(), { name: 'broken.bin', data: 'not zstd at all', method: 93 }]);
      assertRefused(await post(importUrl(limited.d), broken), 409, /invalid zip/, 'data that is not zstd');
    });
    await leavesNothing(defaults, async () => {
      const bomb = rawZip([topology(), { name: 'project-files/zeros.bin', data: Buffer.alloc(200 * MiB), zstd: true }]);
      assert.ok(bomb.length < 64 * 1024, `${bomb.length} bytes expanding to 200 MiB`);
      assertRefused(await post(importUrl(defaults.d), bomb), 413, /Archive entry 'project-files\/zeros\.bin' \(209715200 bytes from \d+, \d+ to 1\) is over max_import_ratio/, 'a zstd bomb');
    });
  });

  it('an archive of more entries than max_import_entries is a 413 before any entry is read: 100,000 entries are refused at once', async () => {
    await leavesNothing(limited, async () => {
      const entries = [topology(), ...Array.from({ length: 1000 }, (_, i) => ({ name: `f/${i}` }))];
      assertRefused(await post(importUrl(limited.d), rawZip(entries)), 413, /The archive \(1001 entries\) is over max_import_entries \(1000 entries\)/, '1001 entries');
    });
    await leavesNothing(defaults, async () => {
      const entries = [topology(), ...Array.from({ length: 100_000 }, (_, i) => ({ name: `f/${i}` }))];
      const started = Date.now();
      assertRefused(await post(importUrl(defaults.d), rawZip(entries, { zip64: true })), 413, /max_import_entries \(10000 entries\)/, '100,000 entries, default limit');
      assert.ok(Date.now() - started < 20_000, `refused in ${Date.now() - started} ms`);
    });
  });

  it('names that clash, cannot be created or hide what they are, and entries emuctl cannot read, are a 400 with nothing left', async () => {
    const cases: [string, RawEntry[]][] = [
      ['the same entry twice', [{ name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }]],
      ['a file, then a directory of the same name', [{ name: 'a', data: '1' }, { name: 'a/b', data: '2' }]],
      ['a directory, then a file of the same name', [{ name: 'a/' }, { name: 'a', data: '2' }]],
      ['a file inside what is later a file', [{ name: 'a/b', data: '1' }, { name: 'a', data: '2' }]],
      ['two names differing only by case', [{ name: 'Config.txt', data: '1' }, { name: 'config.txt', data: '2' }]],
      ['two names differing only by Unicode form', [{ name: 'caf\u00e9.txt', data: '1' }, { name: 'cafe\u0301.txt', data: '2' }]],
      ['a 256-byte name', [{ name: 'x'.repeat(256), data: '1' }]],
      ['a 300-character name', [{ name: `project-files/${'é'.repeat(300)}`, data: '1' }]],
      ['a path over PATH_MAX', [{ name: `${`${'d'.repeat(250)}/`.repeat(17)}f`, data: '1' }]],
      ['200 directories deep', [{ name: `${'d/'.repeat(200)}f`, data: '1' }]],
      ['an absolute path', [{ name: '/tmp/emuctl-absolute.txt', data: '1' }]],
      ['a .. segment', [{ name: 'a/../../escaped.txt', data: '1' }]],
      ['backslashes', [{ name: '..\\..\\escaped.txt', data: '1' }]],
      ['a drive letter', [{ name: 'C:escaped.txt', data: '1' }]],
      ['a NUL', [{ name: 'a\0b.txt', data: '1' }]],
      ['a newline', [{ name: 'a\nb.txt', data: '1' }]],
      ['a right-to-left override', [{ name: 'invoice\u202etxt.exe', data: '1' }]],
      ['a directory entry with data', [{ name: 'dir/', data: 'surprise' }]],
      ['an encrypted entry', [{ name: 'secret.txt', data: 'xxxxxxxxxxxxxxxx', flags: 0x1, deflate: true }]],
      ['an unknown compression method', [{ name: 'b.bz2', data: 'BZh9', method: 12 }]],
    ];
    await leavesNothing(limited, async () => {
      for (const [what, entries] of cases) {
        assertRefused(await post(importUrl(limited.d), rawZip([topology(), ...entries])), 400, /archive entry '/, what);
      }
    });
  });

  it('broken archives are a 409, as GNS3 answers an invalid zip: truncated, a lying central directory, a stored size mismatch', async () => {
    const good = rawZip([topology(), { name: 'a.txt', data: 'hello' }]);
    const wrongOffset = Buffer.from(good);
    const central = wrongOffset.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), 0);
    const second = wrongOffset.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), central + 4);
    wrongOffset.writeUInt32LE(3, second + 42); // the local header is not where the directory says
    const cases: [string, Buffer][] = [
      ['truncated', good.subarray(0, Math.floor(good.length / 2))],
      ['an entry count larger than the directory', rawZip([topology(), { name: 'a.txt', data: 'x' }], { declaredCount: 50 })],
      ['a local header offset that points elsewhere', wrongOffset],
      ['a stored entry whose sizes disagree', rawZip([topology(), { name: 'a.txt', data: 'hello', declaredSize: 2 }])],
    ];
    await leavesNothing(limited, async () => {
      for (const [what, zip] of cases) assertRefused(await post(importUrl(limited.d), zip), 409, /invalid zip/, what);
    });
  });

  it('a ZIP64 archive within the limits imports', async () => {
    const r = await post(importUrl(limited.d), rawZip([topology('zip64'), { name: 'project-files/notes.txt', data: 'hello', deflate: true }], { zip64: true }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.name, 'zip64');
    assert.deepEqual(readdirSync(limited.spool), []);
  });

  it('a project.gns3 whose nodes, links or drawings are not objects, or whose name is empty, is a 409 (corrupted, as GNS3 says); a link with broken ends is dropped', async () => {
    const file = (topology: unknown, name = 'odd') => ({ name: 'project.gns3', data: JSON.stringify({ type: 'topology', name, topology }) });
    const empty = { nodes: [], links: [], drawings: [], computes: [] };
    const corrupted: [string, RawEntry][] = [
      ['a number as a node', file({ ...empty, nodes: [5] })],
      ['null as a node', file({ ...empty, nodes: [null] })],
      ['a string as a link', file({ ...empty, links: ['x'] })],
      ['a number as a drawing', file({ ...empty, drawings: [1] })],
      ['an array as the topology', file([])],
      ['an empty name', file(empty, '')],
    ];
    await leavesNothing(limited, async () => {
      for (const [what, entry] of corrupted) assertRefused(await post(importUrl(limited.d), rawZip([entry])), 409, /project\.gns3 file is corrupted/, what);
    });
    const node = { node_id: randomUUID(), node_type: 'vpcs', name: 'PC1', compute_id: 'local', properties: {} };
    const r = await post(importUrl(limited.d), rawZip([file({ ...empty, nodes: [node], links: [{ link_id: randomUUID(), nodes: [null, 5] }] })]));
    assert.equal(r.status, 201, r.text);
    assert.equal((await limited.d.api('POST', `/v2/projects/${r.body.project_id}/open`, {})).status, 201);
    const links = await limited.d.api('GET', `/v2/projects/${r.body.project_id}/links`);
    assert.deepEqual([links.status, links.body], [200, []]);
    await limited.d.api('POST', `/v2/projects/${r.body.project_id}/close`, {});
  });

  it("emuctl's own bookkeeping in an archive (which exports never carry) is not believed: dropped on import", async () => {
    const r = await post(importUrl(limited.d), rawZip([topology('planted'), { name: 'project-files/emuctl-running.json', data: '{"length": 1e12}' }]));
    assert.equal(r.status, 201, r.text);
    assert.ok(!existsSync(join(limited.projects, r.body.project_id, 'project-files', 'emuctl-running.json')));
  });

  it('a project.gns3 that is huge (413) or nested too deep (400) is refused before it is parsed', async () => {
    await leavesNothing(defaults, async () => {
      const huge = { name: 'project.gns3', data: `{"name":"huge","topology":{}${' '.repeat(65 * MiB)}}`, deflate: true };
      assertRefused(await post(importUrl(defaults.d), rawZip([huge])), 413, /project\.gns3 is \d+ bytes, over the 67108864 bytes/, 'a 65 MiB topology');
      const deep = { name: 'project.gns3', data: `{"name":"deep","topology":{},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, deflate: true };
      assertRefused(await post(importUrl(defaults.d), rawZip([deep])), 400, /project\.gns3 nests deeper than 64 levels/, 'a topology 100,000 levels deep');
    });
  });

  it('an import into an existing project id is a 409 before the upload is read; one archive uploaded twice at once makes one project per id', async () => {
    const archive = new Uint8Array(rawZip([topology('twice'), { name: 'project-files/a.txt', data: 'a' }]));
    const id = randomUUID();
    assert.equal((await post(importUrl(limited.d, id), archive)).status, 201);
    assertRefused(await post(importUrl(limited.d, id), new Uint8Array(13 * MiB)), 409, /already exists/, 'an existing id, even with a body over the limit');
    const same = randomUUID();
    const both = await Promise.all([post(importUrl(limited.d, same), archive), post(importUrl(limited.d, same), archive)]);
    assert.deepEqual(both.map((r) => r.status).sort(), [201, 409], both.map((r) => r.text).join('\n'));
    const apart = await Promise.all([post(importUrl(limited.d), archive), post(importUrl(limited.d), archive)]);
    assert.deepEqual(apart.map((r) => r.status), [201, 201], apart.map((r) => r.text).join('\n'));
    assert.deepEqual(apart.map((r) => r.body.name).sort(), ['twice-2', 'twice-3'], 'two free names (twice and twice-1 are taken)');
    assert.deepEqual(readdirSync(limited.spool), []);
  });

  it('a snapshot is an archive too: a hostile one is refused on restore and the project stays as it was', async () => {
    const d = limited.d;
    const pid = await createProject(d, 'snapped');
    const snapshot = await d.api('POST', `/v2/projects/${pid}/snapshots`, { name: 'base' });
    assert.equal(snapshot.status, 201, snapshot.text);
    const file = readdirSync(join(limited.projects, pid, 'snapshots'))[0];
    const snapshotPath = join(limited.projects, pid, 'snapshots', file);
    const projectFiles = () => readdirSync(join(limited.projects, pid)).sort();
    const before = projectFiles();
    const hostile: [string, Buffer, number][] = [
      ['duplicate entries', rawZip([topology(), { name: 'x', data: '1' }, { name: 'x', data: '2' }]), 400],
      ['a bomb', rawZip([topology(), { name: 'zeros', data: Buffer.alloc(5 * MiB), deflate: true }]), 413],
      ['too many entries', rawZip([topology(), ...Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}` }))]), 413],
    ];
    for (const [what, zip, status] of hostile) {
      writeFileSync(snapshotPath, zip);
      const r = await d.api('POST', `/v2/projects/${pid}/snapshots/${snapshot.body.snapshot_id}/restore`, {});
      assert.equal(r.status, status, `${what}: ${r.text}`);
      assert.equal(r.body.status, status);
      assert.deepEqual(projectFiles(), before, `${what}: no staging directory left, the project untouched`);
    }
    assert.equal((await d.api('GET', `/v2/projects/${pid}`)).body.status, 'opened');
  });

  it('image names of 300 characters, with control characters, a .. part or a hidden part are a 400; a subdirectory is fine', async () => {
    const imageUrl = (name: string) => `${limited.d.url}/v2/compute/qemu/images/${name}`;
    const bad = ['x'.repeat(300), 'a%0Ab.qcow2', 'a%00b.qcow2', 'sub%2F..%2Fescape.qcow2', '.hidden.qcow2', 'sub/.hidden/disk.qcow2', `${'d/'.repeat(100)}disk.qcow2`];
    for (const name of bad) assertRefused(await post(imageUrl(name), new Uint8Array(16)), 400, /image name/i, name);
    const content = randomBytes(100_000);
    const ok = await post(imageUrl('sub/disk.qcow2'), new Uint8Array(content));
    assert.equal(ok.status, 204, ok.text);
    const listed = (await limited.d.api('GET', '/v2/compute/qemu/images')).body.find((i: any) => i.filename === 'sub/disk.qcow2');
    assert.deepEqual([listed?.filesize, listed?.md5sum], [content.length, createHash('md5').update(content).digest('hex')], 'size and md5 of what was sent');
  });

  it('an image upload over max_image_bytes is a 413 answer, declared or found while streaming, and leaves no temporary file', async () => {
    const imageUrl = `${limited.d.url}/v2/compute/qemu/images/big.qcow2`;
    assertRefused(await post(imageUrl, new Uint8Array(2 * MiB)), 413, /max_image_bytes/, 'declared');
    assertRefused(await post(imageUrl, chunked(8 * MiB)), 413, /max_image_bytes/, 'chunked');
    const images = join(limited.d.home, 'images', 'QEMU');
    assert.deepEqual((existsSync(images) ? readdirSync(images) : []).filter((f) => f.startsWith('.') || f.startsWith('big')), []);
  });

  it('a random non-zip body is a 409 and the daemon answers afterwards', async () => {
    await leavesNothing(limited, async () => {
      assertRefused(await post(importUrl(limited.d), randomBytes(4096)), 409, /invalid zip/, 'random bytes');
    });
  });
});
