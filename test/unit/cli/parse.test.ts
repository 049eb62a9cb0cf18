// First of the two tests per command: argv → options, with a spy in place of run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { daemonRunCommand } from '../../../src/commands/daemon/run.js';
import { daemonStartCommand } from '../../../src/commands/daemon/start.js';
import { daemonStatusCommand } from '../../../src/commands/daemon/status.js';
import { daemonStopCommand } from '../../../src/commands/daemon/stop.js';
import { profileAddCommand } from '../../../src/commands/profile/add.js';
import { profileListCommand } from '../../../src/commands/profile/list.js';
import { profileRemoveCommand } from '../../../src/commands/profile/remove.js';
import { profileShowCommand } from '../../../src/commands/profile/show.js';
import { profileUseCommand } from '../../../src/commands/profile/use.js';
import { projectCloseCommand } from '../../../src/commands/project/close.js';
import { projectCreateCommand } from '../../../src/commands/project/create.js';
import { projectDeleteCommand } from '../../../src/commands/project/delete.js';
import { projectListCommand } from '../../../src/commands/project/list.js';
import { projectOpenCommand } from '../../../src/commands/project/open.js';
import { projectShowCommand } from '../../../src/commands/project/show.js';
import { projectUseCommand } from '../../../src/commands/project/use.js';
import { versionCommand } from '../../../src/commands/version/index.js';
import { completionCommand } from '../../../src/commands/completion/index.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';
import { NOUN_COMMANDS } from '../../../src/commands/all.js';
import { NOUNS, nounOf, nounsFor } from '../../../src/commands/index.js';
import { createFactory } from '../../../src/cli/context.js';
import { BufferOutput } from '../../../src/render/buffer-output.js';

describe('global options', () => {
  it('are read before or after the command words', async () => {
    const after = await parseWithSpy('project', projectListCommand, ['project', 'list', '--json', '--profile', 'lab', '--url', 'http://h:1', '-q', '--no-color', '--debug',
      '--ca-file', '/ca.pem', '--fingerprint', 'AB:CD', '--api', 'v3']);
    assert.deepEqual(after.ctx.globals, { profile: 'lab', url: 'http://h:1', caFile: '/ca.pem', fingerprint: 'AB:CD', api: 'v3', json: true, color: false, quiet: true, debug: true });
    const before = await parseWithSpy('project', projectListCommand, ['--json', 'project', 'list']);
    assert.deepEqual(before.ctx.globals, { profile: undefined, url: undefined, caFile: undefined, fingerprint: undefined, api: undefined, json: true, color: true, quiet: false, debug: false });
    assert.equal(before.ctx.out.json, true, 'the output object is configured from them');
  });
});

describe('daemon verbs', () => {
  it('daemon run: every daemon flag, and the global --debug', async () => {
    const { opts } = await parseWithSpy('daemon', daemonRunCommand, ['daemon', 'run', '--host', '0.0.0.0', '--port', '3999',
      '--projects-dir', '/p', '--config', '/c.json', '--auth-user', 'u', '--auth-password-file', '/pw', '--role', 'compute',
      '--log-file', '/l.log', '--tls-cert', '/c.pem', '--tls-key', '/k.pem', '--insecure-no-auth', '--debug']);
    assert.deepEqual(opts, { flags: { host: '0.0.0.0', port: 3999, projectsDir: '/p', config: '/c.json', authUser: 'u',
      authPasswordFile: '/pw', role: 'compute', logFile: '/l.log', tlsCert: '/c.pem', tlsKey: '/k.pem', insecureNoAuth: true, debug: true } });
    assert.deepEqual((await parseWithSpy('daemon', daemonRunCommand, ['daemon', 'run'])).opts, { flags: {} });
  });

  it('daemon run: --cors-origin and --allowed-host are repeatable and give the daemon its lists', async () => {
    const { opts } = await parseWithSpy('daemon', daemonRunCommand, ['daemon', 'run', '--cors-origin', 'http://ui.example:8080',
      '--allowed-host', 'lab.example', '--cors-origin', 'https://other.example', '--allowed-host', '198.18.0.1']);
    assert.deepEqual(opts, { flags: { corsOrigins: ['http://ui.example:8080', 'https://other.example'], allowedHosts: ['lab.example', '198.18.0.1'] } });
    const started = await parseWithSpy('daemon', daemonStartCommand, ['daemon', 'start', '--allowed-host', 'lab.example']);
    assert.deepEqual(started.opts, { flags: { allowedHosts: ['lab.example'] }, timeout: 10 });
  });

  it('daemon run: rejects a bad port or role as usage errors', async () => {
    await assert.rejects(parseWithSpy('daemon', daemonRunCommand, ['daemon', 'run', '--port', '70000']), isUsage);
    await assert.rejects(parseWithSpy('daemon', daemonRunCommand, ['daemon', 'run', '--port', 'x']), isUsage);
    await assert.rejects(parseWithSpy('daemon', daemonRunCommand, ['daemon', 'run', '--role', 'router']), isUsage);
  });

  it('daemon start: flags and --timeout (default 10)', async () => {
    const { opts } = await parseWithSpy('daemon', daemonStartCommand, ['daemon', 'start', '--port', '4000', '--timeout', '2.5']);
    assert.deepEqual(opts, { flags: { port: 4000 }, timeout: 2.5 });
    assert.deepEqual((await parseWithSpy('daemon', daemonStartCommand, ['daemon', 'start'])).opts, { flags: {}, timeout: 10 });
    await assert.rejects(parseWithSpy('daemon', daemonStartCommand, ['daemon', 'start', '--timeout', '0']), isUsage);
  });

  it('daemon stop and status: --port picks the daemon', async () => {
    assert.deepEqual((await parseWithSpy('daemon', daemonStopCommand, ['daemon', 'stop', '--port', '4001'])).opts, { port: 4001, timeout: 10 });
    assert.deepEqual((await parseWithSpy('daemon', daemonStopCommand, ['daemon', 'stop', '--timeout', '1'])).opts, { port: undefined, timeout: 1 });
    assert.deepEqual((await parseWithSpy('daemon', daemonStatusCommand, ['daemon', 'status', '--port', '4002'])).opts, { port: 4002 });
    assert.deepEqual((await parseWithSpy('daemon', daemonStatusCommand, ['daemon', 'status', '--json'])).opts, { port: undefined });
  });
});

describe('profile verbs', () => {
  it('profile add: name, the global --url, --user, --password-stdin, --default-project, --force', async () => {
    const { opts } = await parseWithSpy('profile', profileAddCommand, ['profile', 'add', 'lab', '--url', 'http://lab:3080',
      '--user', 'admin', '--password-stdin', '--default-project', 'p1', '--force']);
    assert.deepEqual(opts, { name: 'lab', url: 'http://lab:3080', user: 'admin', passwordStdin: true, defaultProject: 'p1', force: true });
    const bare = await parseWithSpy('profile', profileAddCommand, ['profile', 'add', 'lab']);
    assert.deepEqual(bare.opts, { name: 'lab', url: undefined, user: undefined, passwordStdin: false, defaultProject: undefined, force: false });
  });

  it('profile add: a password is never an argument', async () => {
    await assert.rejects(parseWithSpy('profile', profileAddCommand, ['profile', 'add', 'lab', '--password', 'x']), isUsage);
    await assert.rejects(parseWithSpy('profile', profileAddCommand, ['profile', 'add']), isUsage);
  });

  it('profile list, use, show, remove', async () => {
    assert.deepEqual((await parseWithSpy('profile', profileListCommand, ['profile', 'list'])).opts, {});
    assert.deepEqual((await parseWithSpy('profile', profileListCommand, ['profile', 'ls'])).opts, {});
    assert.deepEqual((await parseWithSpy('profile', profileUseCommand, ['profile', 'use', 'lab'])).opts, { name: 'lab' });
    assert.deepEqual((await parseWithSpy('profile', profileShowCommand, ['profile', 'show'])).opts, { name: undefined });
    assert.deepEqual((await parseWithSpy('profile', profileShowCommand, ['profile', 'show', 'lab'])).opts, { name: 'lab' });
    assert.deepEqual((await parseWithSpy('profile', profileRemoveCommand, ['profile', 'rm', 'lab'])).opts, { name: 'lab' });
    await assert.rejects(parseWithSpy('profile', profileUseCommand, ['profile', 'use']), isUsage);
    await assert.rejects(parseWithSpy('profile', profileRemoveCommand, ['profile', 'remove', 'a', 'b']), isUsage);
  });
});

describe('project verbs', () => {
  it('project list and create', async () => {
    assert.deepEqual((await parseWithSpy('project', projectListCommand, ['project', 'ls'])).opts, {});
    assert.deepEqual((await parseWithSpy('project', projectCreateCommand, ['project', 'create', 'lab 1'])).opts, { name: 'lab 1', use: false });
    assert.deepEqual((await parseWithSpy('project', projectCreateCommand, ['project', 'create', 'lab', '--use'])).opts, { name: 'lab', use: true });
    await assert.rejects(parseWithSpy('project', projectCreateCommand, ['project', 'create']), isUsage);
  });

  it('project show, open and close take an optional project; delete and use require one', async () => {
    assert.deepEqual((await parseWithSpy('project', projectShowCommand, ['project', 'show', 'a1b2'])).opts, { project: 'a1b2' });
    assert.deepEqual((await parseWithSpy('project', projectShowCommand, ['project', 'show'])).opts, { project: undefined });
    assert.deepEqual((await parseWithSpy('project', projectOpenCommand, ['project', 'open', 'lab'])).opts, { project: 'lab' });
    assert.deepEqual((await parseWithSpy('project', projectCloseCommand, ['project', 'close'])).opts, { project: undefined });
    assert.deepEqual((await parseWithSpy('project', projectDeleteCommand, ['project', 'rm', 'lab'])).opts, { project: 'lab' });
    assert.deepEqual((await parseWithSpy('project', projectUseCommand, ['project', 'use', 'lab'])).opts, { project: 'lab' });
    await assert.rejects(parseWithSpy('project', projectDeleteCommand, ['project', 'delete']), isUsage);
    await assert.rejects(parseWithSpy('project', projectUseCommand, ['project', 'use']), isUsage);
  });
});

describe('version and completion', () => {
  it('version takes no arguments', async () => {
    assert.deepEqual((await parseWithSpy(null, versionCommand, ['version', '--json'])).opts, {});
    await assert.rejects(parseWithSpy(null, versionCommand, ['version', 'extra']), isUsage);
  });

  it('completion defaults to bash and knows the root', async () => {
    const { opts } = await parseWithSpy(null, completionCommand, ['completion']);
    assert.equal(opts.shell, 'bash');
    assert.equal(opts.root.name(), 'emuctl');
    await assert.rejects(parseWithSpy(null, completionCommand, ['completion', 'tcsh']), isUsage);
  });
});

function isUsage(err: unknown): boolean {
  return err instanceof CommanderError && err.exitCode !== 0;
}

describe('noun loading', () => {
  it('finds the noun after global options and their values', () => {
    assert.equal(nounOf(['project', 'list']), 'project');
    assert.equal(nounOf(['--profile', 'daemon', '--json', 'project', 'list']), 'project');
    assert.equal(nounOf(['--url', 'http://h:1', '-q', 'version']), 'version');
    assert.equal(nounOf(['--url=http://h:1', 'version']), 'version');
    assert.equal(nounOf(['--help']), undefined);
  });

  it('loads only the named noun, and all of them for help, typos and completion', async () => {
    assert.equal((await nounsFor(['project', 'list'])).length, 1);
    assert.equal((await nounsFor(['--help'])).length, NOUNS.length);
    assert.equal((await nounsFor(['projct'])).length, NOUNS.length);
    assert.equal((await nounsFor(['completion'])).length, NOUNS.length);
  });

  it('all.ts holds every noun, the same builder as its own module, in help order', async () => {
    const all = await nounsFor([]);
    const one = await Promise.all(NOUNS.map((noun) => noun.load()));
    assert.deepEqual(all, one);
    assert.deepEqual(Object.keys(NOUN_COMMANDS).sort(), NOUNS.map((noun) => noun.name).sort());
  });

  it('every noun module builds the command of its registered name', async () => {
    const out = new BufferOutput();
    for (const noun of NOUNS) assert.equal((await noun.load())(createFactory(out, {})).name(), noun.name);
  });
});
