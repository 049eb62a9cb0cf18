// Issue 33: one FRR start script for every lab router (generated device, example, ring bench):
// it loads frr.conf itself before watchfrr starts, so no restart timeout can cut the load short.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generatedFiles, renderGeneratedFiles } from '../../../../src/lab/generated/configs.js';
import { DEVICES } from '../../../../src/lab/generated/devices.js';
import { frrDaemons } from '../../../../src/lab/generated/frr.js';
import { FRR_LAB_START, FRR_LAB_START_COMMAND, FRR_LAB_START_PATH } from '../../../../src/offline-images/recipes.js';
import { parseLab } from '../../../../src/lab/parse.js';
import { fixtureLab } from './golden.js';

const EXAMPLE = (path: string) => fileURLToPath(new URL(`../../../../../examples/${path}`, import.meta.url));

describe('the FRR start script', () => {
  it('is valid bash, loads frr.conf before starting watchfrr, and stays PID 1 until SIGTERM', () => {
    execFileSync('bash', ['-n'], { input: FRR_LAB_START });
    const at = (text: string) => FRR_LAB_START.indexOf(text);
    assert.ok(at('vtysh_b') > at('daemon_start --all') && at('vtysh_b') < at('daemon_start watchfrr'), 'vtysh -b runs after the daemons start and before watchfrr');
    assert.ok(at("trap 'kill -TERM -1 2>/dev/null; exit 0' TERM INT") > 0, 'SIGTERM stops every daemon at once');
    assert.equal(FRR_LAB_START_COMMAND, `bash ${FRR_LAB_START_PATH}`);
  });

  it('is what the example\'s generated routers run', () => {
    const example = parseLab(readFileSync(EXAMPLE('ospf-triangle.yml'), 'utf8'), 'ospf-triangle.yml', {});
    for (const name of ['R1', 'R2', 'R3']) {
      assert.equal(generatedFiles(example, name).find((f) => f.path === FRR_LAB_START_PATH)?.text, FRR_LAB_START);
      assert.equal(example.nodes.find((n) => n.name === name)!.cmd, FRR_LAB_START_COMMAND);
    }
  });

  it('picks zebra and the daemons the file enables: staticd only when it says so', () => {
    const chosen = (daemons: string) => execFileSync('bash', ['-c', `${daemons}\nDAEMONS="zebra bgpd ospfd ospf6d staticd bfdd"\n${/^daemons=zebra\n[\s\S]*?^done\n/m.exec(FRR_LAB_START)![0]}echo $daemons`], { encoding: 'utf8' }).trim();
    assert.equal(chosen(frrDaemons(['ospfd'])), 'zebra ospfd');
    assert.equal(chosen(frrDaemons(['bgpd', 'ospfd', 'ospf6d'])), 'zebra bgpd ospfd ospf6d');
    assert.equal(chosen('ospfd=yes\nstaticd=yes\nbfdd=no'), 'zebra ospfd staticd');
  });

  it('is a startup file of every generated FRR router, which runs it', () => {
    assert.ok(DEVICES.frr);
    const text = renderGeneratedFiles(generatedFiles(fixtureLab('ospf-triangle')));
    for (const r of ['R1', 'R2', 'R3']) assert.ok(text.includes(`### ${r} ${FRR_LAB_START_PATH}\n${FRR_LAB_START}`), r);
    assert.doesNotMatch(text, /^staticd=yes$/m);
  });
});
