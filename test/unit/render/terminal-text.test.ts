import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferOutput } from '../../../src/render/buffer-output.js';
import { Output } from '../../../src/render/output.js';
import { ByteProgress } from '../../../src/render/progress.js';
import { styleFor } from '../../../src/render/style.js';
import { terminalSafe } from '../../../src/render/terminal-text.js';

const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const LINK = '\u001b]8;;https://attacker.example/\u001b\\click\u001b]8;;\u001b\\';
const HOSTILE = `lab${CLIPBOARD}${CLEAR}${LINK}\rOK\b\u009b31m\u202eevil`;

describe('terminalSafe', () => {
  it('shows every escape, control and reordering character as text', () => {
    const safe = terminalSafe(HOSTILE, false);
    assert.doesNotMatch(safe, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    assert.equal(terminalSafe('a\u001b[2Jb\rc\u0007d\u202ee', false), 'a\\u001b[2Jb\\u000dc\\u0007d\\u202ee');
  });

  it('keeps tabs, newlines and ordinary Unicode', () => {
    assert.equal(terminalSafe('a\tb\nçé ✓ 日本', false), 'a\tb\nçé ✓ 日本');
  });

  it('keeps colour escapes only when asked, and nothing that only starts like one', () => {
    assert.equal(terminalSafe('\u001b[31mred\u001b[39m', true), '\u001b[31mred\u001b[39m');
    assert.equal(terminalSafe('\u001b[31mred\u001b[39m', false), '\\u001b[31mred\\u001b[39m');
    assert.equal(terminalSafe('\u001b[2J\u001b]0;title\u0007', true), '\\u001b[2J\\u001b]0;title\\u0007');
  });
});

describe('Output on a terminal', () => {
  it('neutralises what a server chose, in results and errors, and keeps its own colours', async () => {
    const out = new BufferOutput({ isTTY: true, env: { FORCE_COLOR: '1' } });
    await out.configure({ color: true });
    out.writeOut(`${out.style.bold('NAME')}  ${HOSTILE}\n`);
    out.error(`project '${HOSTILE}' is busy`);
    for (const text of [out.stdoutText(), out.stderrText()]) {
      assert.doesNotMatch(text.replace(/\u001b\[[0-9;]*m/g, ''), /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
      assert.match(text, /\u001b\[[0-9;]*m/, 'its own colours are kept');
      assert.match(text, /\\u001b\]52;c;/, 'the clipboard escape is shown, not acted on');
    }
  });

  it('without colour no escape at all reaches the terminal', async () => {
    const out = new BufferOutput({ isTTY: true, env: { NO_COLOR: '1' } });
    await out.configure({ color: true });
    out.writeOut(`${HOSTILE}\u001b[31m\n`);
    assert.doesNotMatch(out.stdoutText(), /\u001b/);
  });

  it('piped output (not a terminal) is written as it is', async () => {
    const out = new BufferOutput({ isTTY: false });
    await out.configure({});
    out.writeOut(HOSTILE);
    assert.equal(out.stdoutText(), HOSTILE);
  });

  it('a progress line still redraws itself, with a hostile label made safe', async () => {
    const out = new BufferOutput({ isTTY: true, env: {} });
    await out.configure({ color: false });
    const progress = new ByteProgress(out, `file${CLEAR}`);
    progress.update(2048, undefined, true);
    progress.done();
    assert.equal(out.stderrText().split('\r\u001b[K').length, 3);
    assert.match(out.stderrText(), /file\\u001b\[2J/);
  });

  it('colours made by the style survive', async () => {
    const style = await styleFor(1);
    assert.equal(terminalSafe(style.red('x'), true), style.red('x'));
  });
});

describe('spinners on a terminal', () => {
  it('show a server-chosen name in the spinner text as visible escapes, updates included', async () => {
    // A terminal as ora drives one: cursor moves and line clears besides writes.
    let written = '';
    const terminal = { isTTY: true, columns: 80, write: (c: string) => ((written += c), true), cursorTo: () => true, moveCursor: () => true, clearLine: () => true };
    const out = new Output(new BufferOutput().out, terminal, {});
    await out.configure({ color: false });
    const spinner = await out.spinner(`Starting ${HOSTILE}`);
    assert.ok(spinner, 'a terminal gets a spinner');
    try {
      spinner.text = `Still starting ${CLIPBOARD}`;
      assert.doesNotMatch(spinner.text, /\u001b\]52/);
      assert.match(spinner.text, /\\u001b\]52;c;/);
    } finally {
      spinner.stop();
    }
    assert.doesNotMatch(written, /\u001b\]52|\u001b\]8;|\u001b\[2J|\u202e/);
  });
});
