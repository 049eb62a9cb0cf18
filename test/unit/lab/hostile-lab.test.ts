import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/errors.js';
import { readLabFile } from '../../../src/commands/lab/shared.js';
import { LabFileError } from '../../../src/lab/locate.js';
import { parseLab } from '../../../src/lab/parse.js';

/** Nine levels of nine aliases each: 9^9 strings once expanded. */
function aliasBomb(): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
  return `name: bomb\nnodes:\n  pc1: {type: vpcs}\nx-bomb:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

describe('a lab file from someone else', () => {
  it('an alias bomb is a lab file error naming the file, not a crash or a hang', () => {
    assert.throws(() => parseLab(aliasBomb(), 'bomb.yml'), (err: unknown) => err instanceof LabFileError && /bomb\.yml:\d+:\d+: too many aliases/.test(err.message));
  });

  it('a few aliases (shared settings) are still fine', () => {
    const spec = parseLab('name: shared\nnodes:\n  pc1: &pc {type: vpcs}\n  pc2: *pc\n', 'shared.yml');
    assert.deepEqual(spec.nodes.map((n) => n.name).sort(), ['pc1', 'pc2']);
  });

  it('tags never read files or build objects: the value stays text or the file is refused', () => {
    for (const tag of ['!include /etc/passwd', '!!js/function "return 1"', '!!python/object:os.system ["id"]']) {
      let spec;
      try {
        spec = parseLab(`name: ${tag}\nnodes:\n  pc1: {type: vpcs}\n`, 'tags.yml');
      } catch (err) {
        assert.ok(err instanceof LabFileError, `${tag}: ${(err as Error).message}`);
        continue;
      }
      assert.equal(typeof spec.name, 'string', tag);
      assert.doesNotMatch(spec.name, /root:/, tag);
    }
  });

  it('a file over the size limit, or one that never ends, is a usage error', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-'));
    try {
      const big = join(dir, 'big.yml');
      writeFileSync(big, `name: big\nnodes:\n  pc1: {type: vpcs}\n# ${'x'.repeat(5 * 1024 * 1024)}\n`);
      await assert.rejects(readLabFile(big), (err: unknown) => err instanceof UsageError && /over the \d+-byte limit/.test((err as Error).message));
      await assert.rejects(readLabFile('/dev/zero'), (err: unknown) => err instanceof UsageError && /over the \d+-byte limit/.test((err as Error).message));
      const ok = join(dir, 'ok.yml');
      writeFileSync(ok, 'name: ok\nnodes:\n  pc1: {type: vpcs}\n');
      assert.equal((await readLabFile(ok)).name, 'ok');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
