// `emuctl lab generate` run in process: the file it writes (or prints), and one line for a bad count.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateLab } from '../../src/lab/generate/generate.js';
import { assertFails, cliEnv, removeTempHome, runInProcess, tempHome } from './helpers/cli.js';

describe('emuctl lab generate', () => {
  const home = tempHome();
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-generate-'));
  const env = cliEnv(home);
  after(() => {
    removeTempHome(home);
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the fabric to -o FILE, the bytes generateLab gives, and says so', async () => {
    const file = join(dir, 'f.yml');
    const r = await runInProcess(['lab', 'generate', 'clos', '--spines', '2', '--leaves', '4', '--hosts-per-leaf', '1', '--routing', 'bgp', '-o', file], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Wrote .*f\.yml: lab clos-2x4, clos, bgp/);
    assert.equal(readFileSync(file, 'utf8'), generateLab({ kind: 'clos', options: { spines: 2, leaves: 4, hostsPerLeaf: 1 }, routing: 'bgp' }, file, {}));
  });

  it('prints to stdout without -o', async () => {
    const r = await runInProcess(['lab', 'generate', 'tree', '--depth', '1', '--fanout', '2'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# A tree of depth 1 and fanout 2: 3 routers/);
    assert.match(r.stdout, /^ {2}- \[R1, R3\]$/m);
  });

  it('a count out of range, or a directory that does not exist, is one line and a non-zero exit', async () => {
    assertFails(await runInProcess(['lab', 'generate', 'ring', '--routers', '2'], env), 2, /^emuctl: --routers must be a whole number from 3 to 2000, not 2$/m);
    assertFails(await runInProcess(['lab', 'generate', 'ring', '--routers', '3', '-o', join(dir, 'no', 'such', 'f.yml')], env), 1, /cannot write .*: no such directory/);
  });
});
