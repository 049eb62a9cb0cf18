// End to end: spawn `node bin/emuctl.js` with EMUCTL_HOME in a temp dir, against a real daemon.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { cliEnv, hasAnsi, runBin, tempHome, startCliDaemon, stopCliDaemon } from './helpers/cli.js';

describe('emuctl binary: exit codes, --json, colour', () => {
  let daemon: TestDaemon;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    ({ daemon, home, env } = await startCliDaemon());
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('--version prints the package version, exit 0', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    for (const argv of [['--version'], ['-V'], ['project', 'list', '--version']]) {
      const r = await runBin(argv, env);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, `${pkg.version}\n`, ''], argv.join(' '));
    }
  });

  it('exit 0 on success, 1 on a server failure, 2 on usage errors, 3 when unreachable', async () => {
    assert.equal((await runBin(['project', 'create', 'e2e-one'], env)).code, 0);
    const dup = await runBin(['project', 'create', 'e2e-one'], env);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /^emuctl: .+\n$/);
    for (const argv of [['project', 'list', '--bogus'], ['nonoun'], ['project', 'create'], ['project'], ['daemon', 'stop', '--port', 'x']]) {
      const r = await runBin(argv, env);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
    }
    const down = await runBin(['project', 'list'], cliEnv(home, { EMUCTL_URL: 'http://127.0.0.1:9' }));
    assert.equal(down.code, 3);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:9: connection refused/);
  });

  it('--help works on every command and exits 0', async () => {
    for (const argv of [['--help'], ['daemon', '--help'], ['daemon', 'start', '--help'], ['profile', 'add', '--help'], ['project', 'use', '--help'], ['version', '--help']]) {
      const r = await runBin(argv, env);
      assert.equal(r.code, 0, argv.join(' '));
      assert.match(r.stdout, /^Usage: emuctl/);
      if (argv.length > 2) assert.match(r.stdout, /Global Options:\n {2}--profile <name>/);
    }
  });

  it('--json leaves only one JSON document on stdout, for every command', async () => {
    const json = async (...argv: string[]) => {
      const r = await runBin([...argv, '--json'], env);
      assert.doesNotThrow(() => JSON.parse(r.stdout), `${argv.join(' ')} printed: ${r.stdout}`);
      return { ...r, value: JSON.parse(r.stdout) };
    };
    const created = await json('project', 'create', 'e2e-json');
    assert.equal(created.value.name, 'e2e-json');
    const id = created.value.project_id as string;
    assert.ok(Array.isArray((await json('project', 'list')).value));
    assert.equal((await json('project', 'show', id.slice(0, 6))).value.project_id, id);
    assert.equal((await json('project', 'close', 'e2e-json')).value.status, 'closed');
    assert.equal((await json('project', 'open', 'e2e-json')).value.status, 'opened');
    assert.equal((await json('project', 'use', 'e2e-json')).value.project_id, id);
    assert.equal((await json('version')).value.server.url, daemon.url);
    assert.equal((await json('profile', 'show')).value.defaultProject, id);
    assert.ok(Array.isArray((await json('profile', 'list')).value));
    assert.equal((await json('project', 'delete', id)).value.deleted, true);
    const status = await runBin(['daemon', 'status', '--port', String(daemon.port), '--json'], cliEnv(daemon.home));
    assert.equal(JSON.parse(status.stdout).running, true);
    // A failure keeps stdout empty: the error is on stderr.
    const failed = await runBin(['project', 'show', 'no-such-project', '--json'], env);
    assert.deepEqual([failed.code, failed.stdout], [1, '']);
  });

  it('colour: on when forced, never with NO_COLOR or --no-color, never on a pipe', async () => {
    await runBin(['project', 'create', 'e2e-colour'], env);
    const forced = await runBin(['project', 'list'], { ...env, FORCE_COLOR: '1' });
    assert.ok(hasAnsi(forced.stdout), 'FORCE_COLOR shows the test can see colour');
    for (const extra of [{ FORCE_COLOR: '1', NO_COLOR: '1' }, { NO_COLOR: '1' }, {}]) {
      const r = await runBin(['project', 'list'], { ...env, ...extra });
      assert.equal(hasAnsi(r.stdout + r.stderr), false, JSON.stringify(extra));
    }
    const flag = await runBin(['project', 'list', '--no-color'], { ...env, FORCE_COLOR: '1' });
    assert.equal(hasAnsi(flag.stdout), false);
    const error = await runBin(['project', 'show', 'nope'], { ...env, FORCE_COLOR: '1', NO_COLOR: '1' });
    assert.equal(hasAnsi(error.stderr), false);
  });
});

describe('emuctl binary: profiles and credentials', () => {
  const password = 'Sup3r-Secret-Pw';
  let daemon: TestDaemon;
  let home: string;

  before(async () => {
    daemon = await startTestDaemon({ flags: { authUser: 'admin' }, env: { EMUCTL_AUTH_PASSWORD: password } });
    home = tempHome();
  });
  after(() => stopCliDaemon({ daemon, home }));

  it('saves the profiles file with mode 0600 and sends the credentials', async () => {
    const env = cliEnv(home);
    const add = await runBin(['profile', 'add', 'secure', '--url', daemon.url, '--user', 'admin', '--password-stdin'], env, `${password}\n`);
    assert.equal(add.code, 0, add.stderr);
    const file = join(home, 'profiles.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(home).mode & 0o077, 0, 'the directory is private too');
    assert.equal((await runBin(['project', 'list', '--profile', 'secure'], env)).code, 0);
    const anonymous = await runBin(['project', 'list', '--url', daemon.url, '--profile', 'local'], env);
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /check the profile's user and password/);
  });

  it('never prints the password', async () => {
    const env = cliEnv(home, { EMUCTL_PROFILE: 'secure' });
    const outputs: string[] = [];
    for (const argv of [['profile', 'list'], ['profile', 'list', '--json'], ['profile', 'show'], ['profile', 'show', 'secure', '--json'],
      ['project', 'list', '--debug'], ['version', '--debug'], ['project', 'show', 'nope', '--debug']]) {
      const r = await runBin(argv, env);
      outputs.push(r.stdout, r.stderr);
    }
    const all = outputs.join('\n');
    assert.ok(all.includes('********'), 'the mask is shown');
    assert.equal(all.includes(password), false);
    assert.equal(all.includes(Buffer.from(`admin:${password}`).toString('base64')), false);
    assert.equal(statSync(join(home, 'profiles.json')).mode & 0o777, 0o600);
  });
});
