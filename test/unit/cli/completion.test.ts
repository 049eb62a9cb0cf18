import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bashCompletionScript } from '../../../src/commands/completion/bash.js';
import { allNouns, NOUNS } from '../../../src/commands/index.js';
import { createFactory } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/program.js';
import { BufferOutput } from '../../../src/render/buffer-output.js';

const script = bashCompletionScript(buildProgram(createFactory(new BufferOutput(), {}), await allNouns()));

/** COMPREPLY for a command line being typed (the last word is the one completed). */
function complete(words: string[]): string[] {
  const program = `${script}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_emuctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const bash = spawnSync('bash', ['-c', program], { encoding: 'utf8' });
  assert.equal(bash.stderr, '');
  return bash.stdout.split('\n').filter(Boolean).sort();
}

describe('bash completion', () => {
  it('is valid bash', () => {
    const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
  });

  it('completes nouns, verbs and options from the command tree', () => {
    assert.deepEqual(complete(['emuctl', '']), NOUNS.map((n) => n.name).sort());
    assert.deepEqual(complete(['emuctl', 'pro']), ['profile', 'project']);
    assert.deepEqual(complete(['emuctl', 'daemon', 'st']), ['start', 'status', 'stop']);
    assert.deepEqual(complete(['emuctl', '--json', 'project', 'c']), ['close', 'create']);
    assert.ok(complete(['emuctl', 'daemon', 'start', '--']).includes('--projects-dir'));
    assert.ok(complete(['emuctl', 'daemon', 'start', '--']).includes('--json'), 'global options everywhere');
    assert.deepEqual(complete(['emuctl', 'profile', 'add', 'lab', '--pa']), ['--password-stdin']);
  });

  it('knows the docker kind: node types after --type, docker options, image kinds and image import', () => {
    assert.deepEqual(complete(['emuctl', 'node', 'create', 'R1', '--type', '']), ['docker', 'ethernet_hub', 'ethernet_switch', 'qemu', 'vpcs']);
    assert.deepEqual(complete(['emuctl', 'node', 'create', 'R1', '-t', 'd']), ['docker']);
    assert.deepEqual(complete(['emuctl', 'node', 'create', 'R1', '--st']), ['--start-command']);
    assert.deepEqual(complete(['emuctl', 'image', 'list', '--kind', '']), ['docker', 'qemu']);
    assert.deepEqual(complete(['emuctl', 'image', 'i']), ['import']);
    assert.deepEqual(complete(['emuctl', 'node', 'create', 'R1', '--image', '']), [], 'an option without values completes nothing');
  });
});

describe('bash completion inside lab verbs', () => {
  const bin = fileURLToPath(new URL('../../../../bin', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'emuctl-complete-'));
  const lab = join(dir, 'lab.yml');
  writeFileSync(lab, 'name: t\nnodes:\n  SW1: {type: ethernet_switch}\n  PC1: {type: vpcs, ip: 10.0.0.1/24}\n  PC2: {type: vpcs}\nlinks:\n  - [PC1:0/0, SW1:0/0]\n');
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** COMPREPLY with the real emuctl on the PATH (the script asks it for the file's names). */
  const completeLab = (words: string[]) => {
    const program = `${script}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_emuctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const bash = spawnSync('bash', ['-c', program], { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    assert.equal(bash.stderr, '');
    return bash.stdout.split('\n').filter(Boolean).sort();
  };

  it('completes the lab file, then node names around the colon of --ping', () => {
    assert.deepEqual(completeLab(['emuctl', 'lab', 'up', join(dir, 'la')]), [lab]);
    assert.deepEqual(completeLab(['emuctl', 'lab', 'wait', lab, '--ping', '']), ['PC1:', 'PC2:', 'SW1:']);
    assert.deepEqual(completeLab(['emuctl', 'lab', 'wait', lab, '--ping', 'PC1:P']), ['PC1:PC1', 'PC1:PC2']);
    // Bash's default COMP_WORDBREAKS splits PC1:P into PC1, :, P.
    assert.deepEqual(completeLab(['emuctl', 'lab', 'wait', lab, '--timeout', '5', '--ping', 'PC2', ':', 'S']), ['SW1']);
  });

  it('completes node and link names after the lab of lab inspect', () => {
    assert.deepEqual(completeLab(['emuctl', 'lab', 'inspect', lab, '']), ['PC1', 'PC1:0/0-SW1:0/0', 'PC2', 'SW1']);
    assert.deepEqual(completeLab(['emuctl', 'lab', 'inspect', lab, 'PC1', 'S']), ['SW1']);
    assert.deepEqual(completeLab(['emuctl', 'lab', 'wait', join(dir, 'missing.yml'), '--ping', '']), []);
  });
});
