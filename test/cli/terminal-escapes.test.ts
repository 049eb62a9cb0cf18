import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runInProcess, startCliDaemon, stopCliDaemon, type CliDaemon } from './helpers/cli.js';

/** A name a hostile server (or another user of a shared one) picks: clipboard write, screen clear, link, line rewrite, reordering. */
const HOSTILE_NAME = 'lab\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u001b]8;;https://attacker.example/\u001b\\x\u001b]8;;\u001b\\\rOK\u202e';
const ACTING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('the CLI on a terminal shows what a server chose, never lets the terminal act on it', () => {
  let cli: CliDaemon;
  let projectId: string;
  before(async () => {
    cli = await startCliDaemon();
    const made = await cli.daemon.api('POST', '/v2/projects', { name: HOSTILE_NAME });
    assert.equal(made.status, 201);
    projectId = made.body.project_id;
  });
  after(async () => stopCliDaemon(cli));

  it('project list and project show neutralise the escapes (NO_COLOR: no escape at all)', async () => {
    for (const argv of [['project', 'list'], ['project', 'show', projectId]]) {
      const r = await runInProcess(argv, { ...cli.env, NO_COLOR: '1' }, { isTTY: true });
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, ACTING, argv.join(' '));
      assert.match(r.stdout, /lab\\u001b\]52;c;cm0gLXJmIH4=\\u0007\\u001b\[2J/, argv.join(' '));
    }
  });

  it('an error naming the project is neutralised on stderr', async () => {
    const r = await runInProcess(['project', 'create', HOSTILE_NAME], { ...cli.env, NO_COLOR: '1' }, { isTTY: true });
    assert.notEqual(r.code, 0);
    assert.doesNotMatch(r.stderr, ACTING);
    assert.match(r.stderr, /already exists/);
  });

  it('--json keeps the name exact, as JSON escapes', async () => {
    const r = await runInProcess(['project', 'show', projectId, '--json'], cli.env, { isTTY: true });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, ACTING);
    assert.equal(JSON.parse(r.stdout).name, HOSTILE_NAME);
  });

  it('piped (not a terminal), the text is passed on as it is', async () => {
    const r = await runInProcess(['project', 'list'], cli.env);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(HOSTILE_NAME));
  });
});
