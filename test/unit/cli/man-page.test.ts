import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { allNouns } from '../../../src/commands/index.js';
import { createFactory } from '../../../src/cli/context.js';
import { buildProgram, commandPath, walkCommands } from '../../../src/cli/program.js';
import { BufferOutput } from '../../../src/render/buffer-output.js';

const MAN_PAGE = fileURLToPath(new URL('../../../../man/emuctl.1', import.meta.url));

/** The man page source with roff escapes for hyphens and fonts removed. */
function plainManText(): string {
  return readFileSync(MAN_PAGE, 'utf8').replace(/\\-/g, '-').replace(/\\f[BIRP]/g, '').replace(/\\\(em/g, '—');
}

/** Sections of the page: heading (from .SH or .SS) → text until the next heading. */
function sections(text: string): Map<string, string> {
  const map = new Map<string, string>();
  let heading = '';
  for (const line of text.split('\n')) {
    const m = /^\.S[HS] "?([^"]*)"?$/.exec(line);
    if (m) {
      heading = m[1];
      map.set(heading, '');
    } else {
      map.set(heading, (map.get(heading) ?? '') + line + '\n');
    }
  }
  return map;
}

const program = buildProgram(createFactory(new BufferOutput(), {}), await allNouns());
const leaves = walkCommands(program).filter((c) => c.commands.length === 0 && c.name() !== 'help');
const ownOptions = (command: Command) => command.options.map((o) => o.long!).filter(Boolean);

describe('man/emuctl.1 is in step with the command tree', () => {
  const bySection = sections(plainManText());

  it('has a section for every command', () => {
    const missing = leaves.map(commandPath).filter((path) => !bySection.has(path));
    assert.deepEqual(missing, []);
  });

  it("documents every command's own options in its section", () => {
    const missing: string[] = [];
    for (const command of leaves) {
      const text = bySection.get(commandPath(command)) ?? '';
      // daemon start shares the daemon run options and refers to them.
      const shared = commandPath(command) === 'daemon start' ? bySection.get('daemon run') ?? '' : '';
      for (const flag of ownOptions(command)) if (!text.includes(flag) && !shared.includes(flag)) missing.push(`${commandPath(command)} ${flag}`);
    }
    assert.deepEqual(missing, []);
  });

  it('documents every global option and every alias', () => {
    const global = bySection.get('GLOBAL OPTIONS') ?? '';
    const missing = [...ownOptions(program), '--help'].filter((flag) => !global.includes(flag));
    assert.deepEqual(missing, []);
    const text = plainManText();
    const aliases = leaves.flatMap((c) => c.aliases().map((alias) => `${commandPath(c.parent!)} ${alias}`));
    assert.deepEqual(aliases.filter((alias) => !text.includes(alias)), []);
  });

  it('documents no command that does not exist', () => {
    const known = new Set(leaves.map(commandPath));
    const documented = [...bySection.keys()].filter((heading) => /^[a-z]/.test(heading));
    assert.deepEqual(documented.filter((heading) => !known.has(heading)), []);
  });

  it('renders without groff warnings', () => {
    const groff = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', MAN_PAGE], { encoding: 'utf8' });
    assert.equal(groff.error, undefined, 'groff runs (scripts/setup.sh installs it)');
    assert.equal(groff.status, 0);
    assert.equal(groff.stderr, '');
  });
});
