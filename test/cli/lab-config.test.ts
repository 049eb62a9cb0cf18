// `emuctl lab config`: argv → options, and the real CLI's output (same bytes twice, -o DIR, --dry-run, bad input).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { labConfigCommand } from '../../src/commands/lab/config.js';
import { parseLab } from '../../src/lab/parse.js';
import { FRR_LAB_START, WATCHFRR_OPTIONS } from '../../src/offline-images/recipes.js';
import { assertFails, cliEnv, jsonOf, parseWithSpy, runBin } from './helpers/cli.js';

const LAB = fileURLToPath(new URL('../../../test/fixtures/generated/ospf-triangle.yml', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../../../test/fixtures/generated/ospf-triangle.config.txt', import.meta.url));

describe('emuctl lab config', () => {
  const home = mkdtempSync(join(tmpdir(), 'emuctl-lab-config-'));
  const env = cliEnv(home);
  after(() => rmSync(home, { recursive: true, force: true }));

  it('argv → options', async () => {
    assert.deepEqual((await parseWithSpy('lab', labConfigCommand, ['lab', 'config', 'f.yml'])).opts, { file: 'f.yml', node: undefined, output: undefined, dryRun: false });
    assert.deepEqual((await parseWithSpy('lab', labConfigCommand, ['lab', 'config', 'f.yml', 'R1', '-o', 'out', '--dry-run'])).opts, { file: 'f.yml', node: 'R1', output: 'out', dryRun: true });
  });

  it('prints every generated file, the same bytes twice, as the golden file', async () => {
    const first = await runBin(['lab', 'config', LAB], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, readFileSync(GOLDEN, 'utf8'));
    assert.equal((await runBin(['lab', 'config', LAB], env)).stdout, first.stdout);
    const one = jsonOf(await runBin(['--json', 'lab', 'config', LAB, 'H1'], env));
    assert.deepEqual(Object.keys(one), ['H1 /lab/start.sh']);
    assert.match(one['H1 /lab/start.sh'], /^ip route add default via 198\.19\.0\.1$/m);
  });

  it('-o DIR writes DIR/NODE/FILE; --dry-run only lists them', async () => {
    const dir = join(home, 'out');
    const dry = await runBin(['lab', 'config', LAB, 'R1', '-o', dir, '--dry-run'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout, ['frr.conf', 'daemons', 'vtysh.conf', 'emuctl-start.sh'].map((f) => `would write ${join(dir, 'R1', f)}\n`).join(''));
    assert.equal(existsSync(dir), false);
    const wrote = await runBin(['lab', 'config', LAB, '-o', dir], env);
    assert.equal(wrote.code, 0, wrote.stderr);
    const golden = readFileSync(GOLDEN, 'utf8');
    const r2 = readFileSync(join(dir, 'R2', 'frr.conf'), 'utf8');
    assert.ok(golden.includes(`### R2 /etc/frr/frr.conf\n${r2}`));
    assert.ok(existsSync(join(dir, 'H3', 'start.sh')));
  });

  it('a generated 100-router OSPF ring: lab up reads the file, and every router gets OSPF and the watchfrr timeout', async () => {
    const file = join(home, 'ring-100.yml');
    const gen = await runBin(['lab', 'generate', 'ring', '--routers', '100', '--routing', 'ospf', '-o', file], env);
    assert.equal(gen.code, 0, gen.stderr);
    const spec = parseLab(readFileSync(file, 'utf8'), file, {});
    assert.equal(spec.nodes.filter((n) => n.device === 'frr').length, 100);
    const dir = join(home, 'ring-100');
    const dry = await runBin(['lab', 'config', file, '-o', dir, '--dry-run'], env);
    assert.equal(dry.code, 0, dry.stderr);
    // frr.conf, daemons, vtysh.conf and the start script, for each router.
    assert.equal(dry.stdout.split('\n').filter(Boolean).length, 400);
    assert.equal(existsSync(dir), false);
    const files = jsonOf(await runBin(['--json', 'lab', 'config', file], env)) as Record<string, string>;
    for (let r = 1; r <= 100; r++) {
      const daemons = files[`R${r} /etc/frr/daemons`]!;
      assert.ok(daemons.split('\n').includes(WATCHFRR_OPTIONS), `R${r}'s daemons file sets ${WATCHFRR_OPTIONS}`);
      assert.match(daemons, /^ospfd=yes$/m);
      assert.equal(files[`R${r} /etc/frr/emuctl-start.sh`], FRR_LAB_START, `R${r} loads frr.conf in its own start script`);
      assert.match(files[`R${r} /etc/frr/frr.conf`]!, new RegExp(`^hostname R${r}\n[\\s\\S]*^router ospf\n ospf router-id 198\\.18\\.`, 'm'));
    }
  });

  it('a node that is not a device, and a bad lab file: exit non-zero, one line', async () => {
    assertFails(await runBin(['lab', 'config', LAB, 'LAN1'], env), 1, /LAN1 is not a device node of lab ospf-triangle; its device nodes: R1, R2, R3, H1, H2, H3\n$/);
    const bad = join(home, 'bad.yml');
    (await import('node:fs')).writeFileSync(bad, 'name: x\nnodes:\n  R1: {device: frr}\nlinks:\n  - [R1, R9]\n');
    assertFails(await runBin(['lab', 'config', bad], env), 2, /bad\.yml:5:10: link to unknown node "R9"; nodes: R1\n$/);
  });

  it('-o DIR never writes outside DIR, whatever a node is named', async () => {
    const fs = await import('node:fs');
    const lab = join(home, 'escape.yml');
    fs.writeFileSync(lab, 'name: escape\nnodes:\n  ../outside: {device: frr}\n  R2: {device: frr}\nlinks:\n  - [../outside, R2]\n');
    const out = join(home, 'escape-out');
    assertFails(await runBin(['lab', 'config', lab, '-o', out], env), 2, /node \.\.\/outside: its name would write .*outside .*escape-out; rename the node\n$/);
    assert.equal(existsSync(join(home, 'outside')), false, 'nothing beside DIR');
  });
});
