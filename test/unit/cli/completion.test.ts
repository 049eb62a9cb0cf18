import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
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
});
