import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferOutput } from '../../../src/render/buffer-output.js';
import { colorLevel, PLAIN, stripAnsi, styleFor, visibleWidth } from '../../../src/render/style.js';
import { renderFields, renderTable } from '../../../src/render/table.js';
import { projectTable } from '../../../src/commands/project/render.js';

describe('renderTable', () => {
  const rows = [{ name: 'lab1', status: 'opened' }, { name: 'a-much-longer-name', status: 'closed' }];
  const columns = [
    { header: 'name', value: (r: typeof rows[0]) => r.name },
    { header: 'status', value: (r: typeof rows[0]) => r.status },
  ];

  it('aligns columns under upper-case headers, two spaces apart, no trailing spaces', () => {
    assert.equal(renderTable(rows, columns), [
      'NAME                STATUS',
      'lab1                opened',
      'a-much-longer-name  closed',
      '',
    ].join('\n'));
  });

  it('aligns by visible width when cells are coloured', async () => {
    const style = await styleFor(1);
    const coloured = [{ ...columns[0], color: (cell: string) => style.red(cell) }, columns[1]];
    const text = renderTable(rows, coloured, style);
    assert.notEqual(text, stripAnsi(text));
    assert.equal(stripAnsi(text), renderTable(rows, columns));
  });

  it('renders an empty list as just the header', () => {
    assert.equal(renderTable([], columns), 'NAME  STATUS\n');
  });

  it('counts wide characters by code point', () => {
    assert.equal(visibleWidth('\u001b[31mé✓\u001b[39m'), 2);
  });
});

describe('renderFields', () => {
  it('aligns values after the labels', () => {
    assert.equal(renderFields([['name', 'lab1'], ['default project', '-']]),
      'name:             lab1\ndefault project:  -\n');
  });
});

describe('projectTable', () => {
  it('marks the default project, by UUID or by name', () => {
    const projects = [
      { name: 'lab1', project_id: 'aaaa', status: 'opened' },
      { name: 'lab2', project_id: 'bbbb', status: 'closed' },
    ];
    assert.match(projectTable(projects, PLAIN, 'bbbb'), /^\* {2}lab2/m);
    assert.match(projectTable(projects, PLAIN, 'lab1'), /^\* {2}lab1/m);
    assert.doesNotMatch(projectTable(projects, PLAIN), /\*/);
  });
});

describe('colorLevel', () => {
  it('colours only a terminal', () => {
    assert.equal(colorLevel(false, true, {}), 0);
    assert.equal(colorLevel(true, true, {}), 1);
    assert.equal(colorLevel(true, true, { TERM: 'xterm-256color' }), 2);
    assert.equal(colorLevel(true, true, { COLORTERM: 'truecolor' }), 3);
  });

  it('never colours with NO_COLOR (non-empty) or --no-color, even when forced', () => {
    assert.equal(colorLevel(true, true, { NO_COLOR: '1' }), 0);
    assert.equal(colorLevel(true, true, { NO_COLOR: '1', FORCE_COLOR: '1' }), 0);
    assert.equal(colorLevel(true, false, {}), 0);
    assert.equal(colorLevel(true, false, { FORCE_COLOR: '3' }), 0);
    assert.equal(colorLevel(true, true, { NO_COLOR: '' }), 1);
  });

  it('FORCE_COLOR colours a pipe; a dumb terminal gets none', () => {
    assert.equal(colorLevel(false, true, { FORCE_COLOR: '1' }), 1);
    assert.equal(colorLevel(false, true, { FORCE_COLOR: '0' }), 0);
    assert.equal(colorLevel(true, true, { TERM: 'dumb' }), 0);
  });
});

describe('Output', () => {
  it('with --json writes only JSON to stdout; confirmations and notes are dropped or go to stderr', async () => {
    const out = new BufferOutput();
    await out.configure({ json: true });
    out.result({ a: 1 }, () => 'human\n');
    out.success('Created it');
    out.note('a note');
    out.warn('careful');
    assert.deepEqual(JSON.parse(out.stdoutText()), { a: 1 });
    assert.equal(out.stderrText(), 'a note\nwarning: careful\n');
  });

  it('without --json writes the human rendering and confirmations to stdout', async () => {
    const out = new BufferOutput();
    await out.configure({});
    out.result({ a: 1 }, () => 'human\n');
    out.result({ b: 2 });
    out.success('Created it');
    assert.equal(out.stdoutText(), 'human\n✓ Created it\n');
  });

  it('with --quiet keeps results, warnings and errors, drops confirmations and notes', async () => {
    const out = new BufferOutput();
    await out.configure({ quiet: true });
    out.result([1], () => 'list\n');
    out.success('done');
    out.note('hint');
    out.warn('w');
    out.error('e');
    assert.equal(out.stdoutText(), 'list\n');
    assert.equal(out.stderrText(), 'warning: w\nemuctl: e\n');
  });

  it('colours on a terminal, not with NO_COLOR or --no-color', async () => {
    const tty = new BufferOutput({ isTTY: true });
    await tty.configure({});
    tty.success('ok');
    assert.match(tty.stdoutText(), /\u001b\[/);

    for (const [env, color] of [[{ NO_COLOR: '1' }, true], [{}, false]] as const) {
      const out = new BufferOutput({ isTTY: true, env });
      await out.configure({ color });
      out.success('ok');
      out.error('bad');
      assert.doesNotMatch(out.stdoutText() + out.stderrText(), /\u001b\[/);
    }
  });

  it('shows spinners only on an interactive terminal', async () => {
    const tty = new BufferOutput({ isTTY: true });
    await tty.configure({});
    assert.equal(await tty.spin('Starting', async () => 42), 42);
    assert.deepEqual(tty.spinners, ['Starting']);

    const pipe = new BufferOutput();
    await pipe.configure({});
    await pipe.spin('Starting', async () => 1);
    const json = new BufferOutput({ isTTY: true });
    await json.configure({ json: true });
    await json.spin('Starting', async () => 1);
    assert.deepEqual([...pipe.spinners, ...json.spinners], []);
  });
});

describe('Output on a terminal that reports no width', () => {
  it('shows no spinner (ora would loop forever)', async () => {
    const stream = { isTTY: true, columns: 0, write: () => true };
    const { Output } = await import('../../../src/render/output.js');
    const out = new Output(stream, stream, {});
    await out.configure({});
    assert.equal(out.interactive, false);
    assert.equal(await out.spin('Starting', async () => 7), 7);
  });
});
