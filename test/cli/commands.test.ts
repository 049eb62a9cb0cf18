// Second of the two tests per command: run → stdout, stderr and exit code, in this
// process (buffer-backed output) against a real daemon on an ephemeral port.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { readProfilesData } from '../../src/client/profiles.js';
import { pathsUnder } from '../../src/config/paths.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { cliEnv, removeTempHome, runInProcess, tempHome, startCliDaemon, stopCliDaemon } from './helpers/cli.js';

describe('project commands against the daemon', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon());
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('project list: says so when empty, exit 0', async () => {
    const r = await run('project', 'list');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'no projects\n', '']);
  });

  it('project create: confirms on stdout; a duplicate name fails with the server message, exit 1', async () => {
    const r = await run('project', 'create', 'alpha');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Created project alpha \([0-9a-f-]{36}\)\n$/);
    const dup = await run('project', 'create', 'alpha');
    assert.equal(dup.code, 1);
    assert.equal(dup.stdout, '');
    assert.match(dup.stderr, /^emuctl: .*alpha.*\n$/);
    assert.equal(dup.stderr.split('\n').length, 2, 'one line');
  });

  it('project list: an aligned table, or the JSON array with --json', async () => {
    await run('project', 'create', 'beta');
    const table = await run('project', 'list');
    assert.equal(table.code, 0);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^ {3}NAME {3}STATUS {2}ID$/);
    assert.match(lines[1], /^ {3}alpha {2}opened {2}[0-9a-f-]{36}$/);
    assert.match(lines[2], /^ {3}beta {3}opened {2}[0-9a-f-]{36}$/);
    const json = await run('project', 'list', '--json');
    assert.deepEqual(JSON.parse(json.stdout), (await daemon.api('GET', '/v2/projects')).body, 'the server\'s array, untouched');
  });

  it('project show: by name or UUID prefix; no match lists the candidates, exit 1', async () => {
    const [alpha] = JSON.parse((await run('project', 'list', '--json')).stdout);
    const byName = await run('project', 'show', 'alpha');
    assert.equal(byName.code, 0);
    assert.match(byName.stdout, new RegExp(`^name: +alpha\\nid: +${alpha.project_id}\\nstatus: +opened\\n`));
    const byPrefix = await run('project', 'show', alpha.project_id.slice(0, 8), '--json');
    assert.equal(JSON.parse(byPrefix.stdout).project_id, alpha.project_id);
    const none = await run('project', 'show', 'gamma');
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no project matches "gamma"; known: alpha \(.*\), beta \(/);
  });

  it('project show without a project and no default: usage error, exit 2', async () => {
    const r = await run('project', 'show');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no project given: pass --project P, or choose one with 'emuctl project use P'/);
  });

  it('project close and open change the status', async () => {
    const closed = await run('project', 'close', 'beta', '--json');
    assert.equal(closed.code, 0, closed.stderr);
    assert.equal(JSON.parse(closed.stdout).status, 'closed');
    const opened = await run('project', 'open', 'beta');
    assert.match(opened.stdout, /^✓ Opened project beta/);
    assert.equal(JSON.parse((await run('project', 'show', 'beta', '--json')).stdout).status, 'opened');
  });

  it('project use: saves the UUID as the default project, used by show and marked in list', async () => {
    const r = await run('project', 'use', 'beta');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Profile local now uses project beta/);
    const beta = JSON.parse((await run('project', 'show', '--json')).stdout);
    assert.equal(beta.name, 'beta');
    const saved = readProfilesData(pathsUnder(home)).profiles.local;
    assert.deepEqual([saved.defaultProject, saved.defaultProjectName], [beta.project_id, 'beta']);
    assert.match((await run('project', 'list')).stdout, /^\* {2}beta/m);
  });

  it('project delete: removes it and clears the default project; -q prints nothing', async () => {
    const r = await run('project', 'delete', 'beta', '-q');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    assert.equal(readProfilesData(pathsUnder(home)).profiles.local.defaultProject, undefined);
    assert.deepEqual(JSON.parse((await run('project', 'list', '--json')).stdout).map((p: { name: string }) => p.name), ['alpha']);
  });

  it('version: client and server versions, exit 0', async () => {
    const r = await run('version');
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`^client: +emuctl \\d+\\.\\d+\\.\\d+\\nserver: +emuctl \\d+\\.\\d+\\.\\d+ \\(GNS3 API 2\\.2\\.\\d+\\) at ${daemon.url.replace(/[.]/g, '\\.')}\\n$`));
    const json = JSON.parse((await run('version', '--json')).stdout);
    assert.equal(json.server.url, daemon.url);
  });
});

describe('the default project, by the UUID and name that project use keeps', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const run = (...argv: string[]) => runInProcess(argv, env);
  /** The requests a --debug run made, as "GET /v2/…" lines. */
  const requests = (stderr: string) => [...stderr.matchAll(/^debug: → (\w+) http:\/\/[^/]+(\S*)$/gm)].map(([, method, path]) => `${method} ${path}`);
  const create = async (name: string) => ((await daemon.api('POST', '/v2/projects', { name })).body as { project_id: string }).project_id;

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon());
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('node list asks once: the nodes of the project by its UUID, without listing the projects', async () => {
    await create('other');
    const id = await create('gamma');
    assert.equal((await run('project', 'use', 'gamma')).code, 0);
    const r = await run('node', 'list', '--debug');
    assert.deepEqual([r.code, r.stdout], [0, 'no nodes in project gamma\n'], r.stderr);
    assert.deepEqual(requests(r.stderr), [`GET /v2/projects/${id}/nodes`]);
    const shown = await run('project', 'show', '--debug', '--json');
    assert.equal(JSON.parse(shown.stdout).project_id, id);
    assert.deepEqual(requests(shown.stderr), [`GET /v2/projects/${id}`]);
    assert.match((await run('profile', 'show')).stdout, new RegExp(`^default project: +gamma \\(${id}\\)$`, 'm'));
  });

  it('once the UUID is gone, the project of the same name is used', async () => {
    const [old] = ((await daemon.api('GET', '/v2/projects')).body as { project_id: string; name: string }[]).filter((p) => p.name === 'gamma');
    assert.equal((await daemon.api('DELETE', `/v2/projects/${old.project_id}`)).status, 204);
    const id = await create('gamma');
    const r = await run('node', 'list', '--debug');
    assert.deepEqual([r.code, r.stdout], [0, 'no nodes in project gamma\n'], r.stderr);
    assert.deepEqual(requests(r.stderr).at(-1), `GET /v2/projects/${id}/nodes`);
    assert.equal(JSON.parse((await run('project', 'show', '--json')).stdout).project_id, id);
  });

  it('with neither the UUID nor the name left, the error names the project; exit 1', async () => {
    const [gamma] = ((await daemon.api('GET', '/v2/projects')).body as { project_id: string; name: string }[]).filter((p) => p.name === 'gamma');
    assert.equal((await daemon.api('DELETE', `/v2/projects/${gamma.project_id}`)).status, 204);
    for (const argv of [['node', 'list'], ['project', 'show']]) {
      const r = await run(...argv);
      assert.deepEqual([r.code, r.stdout], [1, ''], argv.join(' '));
      assert.match(r.stderr, /^emuctl: no project matches "gamma"; known: other \([0-9a-f-]{36}\)\n$/);
    }
  });

  it('a default project saved by name (profile add --default-project) is found by name', async () => {
    const add = await runInProcess(['profile', 'add', 'byname', '--url', daemon.url, '--default-project', 'other'], cliEnv(home));
    assert.equal(add.code, 0, add.stderr);
    const r = await runInProcess(['--profile', 'byname', 'node', 'list'], cliEnv(home));
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'no nodes in project other\n', '']);
  });
});

describe('commands when the server cannot be reached', () => {
  const home = tempHome();
  // Port 9 (discard) on loopback: nothing listens there.
  const env = cliEnv(home, { EMUCTL_URL: 'http://127.0.0.1:9' });
  after(() => removeTempHome(home));

  it('version: prints the client version, says why on stderr, exit 3', async () => {
    const r = await runInProcess(['version'], env);
    assert.equal(r.code, 3);
    assert.match(r.stdout, /^client: +emuctl /);
    assert.equal(r.stderr, "emuctl: cannot reach http://127.0.0.1:9: connection refused; is the daemon running? run 'emuctl daemon start --port 9'\n");
  });

  it('project list: exit 3, nothing on stdout', async () => {
    const r = await runInProcess(['project', 'list', '--json'], env);
    assert.deepEqual([r.code, r.stdout], [3, '']);
  });
});

describe('profile commands', () => {
  const home = tempHome();
  const env = cliEnv(home);
  const stdin = (text: string) => Readable.from([Buffer.from(text)]);
  after(() => removeTempHome(home));

  it('profile add: saves it, reading the password from stdin; prints it masked', async () => {
    const r = await runInProcess(['profile', 'add', 'lab', '--url', 'http://lab:3080/', '--user', 'admin', '--password-stdin', '--json'],
      env, { stdin: stdin('pa55word\n') });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { name: 'lab', url: 'http://lab:3080', user: 'admin', password: '********', active: false, builtIn: false });
    assert.equal(readProfilesData(pathsUnder(home)).profiles.lab.password, 'pa55word');
  });

  it('profile add: without --url is a usage error; an existing name needs --force', async () => {
    assert.equal((await runInProcess(['profile', 'add', 'x'], env)).code, 2);
    const again = await runInProcess(['profile', 'add', 'lab', '--url', 'http://lab:3080'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /profile "lab" already exists; add --force to replace it/);
  });

  it('profile list: local and the saved profiles, the active one marked', async () => {
    const r = await runInProcess(['profile', 'list'], env);
    assert.equal(r.stdout, [
      // API: the local daemon speaks v2; lab's server could not be asked at profile add (? until first use).
      '   NAME   URL                    API  USER   DEFAULT PROJECT',
      '*  local  http://127.0.0.1:3080  v2   -      -',
      '   lab    http://lab:3080        ?    admin  -',
      ''].join('\n'));
  });

  it('profile use: makes it current; --profile still overrides', async () => {
    const r = await runInProcess(['profile', 'use', 'lab'], env);
    assert.equal(r.stdout, '✓ Now using profile lab (http://lab:3080)\n');
    assert.equal(readProfilesData(pathsUnder(home)).current, 'lab');
    assert.match((await runInProcess(['profile', 'show'], env)).stdout, /^name: +lab\n/);
    assert.match((await runInProcess(['profile', 'show', '--profile', 'local'], env)).stdout, /^name: +local \(built in\)\n/);
    assert.equal((await runInProcess(['profile', 'use', 'nope'], env)).code, 2);
  });

  it('profile show: the password masked, the URL override noted', async () => {
    const r = await runInProcess(['profile', 'show', '--url', 'http://other:1'], env);
    assert.match(r.stdout, /^url: +http:\/\/other:1 \(from --url\)$/m);
    assert.match(r.stdout, /^password: +\*{8}$/m);
    assert.doesNotMatch(r.stdout, /pa55word/);
  });

  it('profile remove: removes it and local becomes current; local itself cannot be removed', async () => {
    const r = await runInProcess(['profile', 'remove', 'lab'], env);
    assert.deepEqual([r.code, r.stdout], [0, '✓ Removed profile lab\n']);
    assert.equal(readProfilesData(pathsUnder(home)).current, undefined);
    const local = await runInProcess(['profile', 'remove', 'local'], env);
    assert.equal(local.code, 2);
    assert.match(local.stderr, /built in/);
  });
});

describe('completion', () => {
  it('prints the bash script on stdout', async () => {
    const r = await runInProcess(['completion', 'bash'], {});
    assert.equal(r.code, 0);
    assert.match(r.stdout, /complete -F _emuctl emuctl\n$/);
  });
});
