// `emuctl compute …`: argv → options, with a spy in place of run(); URL and path helpers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { UsageError } from '../../../src/cli/errors.js';
import { computeAddressOf, computeUrl, forwardPath } from '../../../src/client/computes.js';
import { computeAddCommand } from '../../../src/commands/compute/add.js';
import { computeCallCommand } from '../../../src/commands/compute/call.js';
import { computeListCommand } from '../../../src/commands/compute/list.js';
import { computeRemoveCommand } from '../../../src/commands/compute/remove.js';
import { answerText } from '../../../src/commands/compute/render.js';
import { computeShowCommand } from '../../../src/commands/compute/show.js';
import { PLAIN } from '../../../src/render/style.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

function isUsage(err: unknown): boolean {
  return err instanceof CommanderError && err.exitCode !== 0;
}

describe('compute add', () => {
  it('name, the global --url, --user, --password-stdin', async () => {
    const { opts, ctx } = await parseWithSpy('compute', computeAddCommand, ['compute', 'add', 'r1', '--url', 'http://10.0.0.2:3080', '--user', 'admin', '--password-stdin']);
    assert.deepEqual(opts, { name: 'r1', url: 'http://10.0.0.2:3080', user: 'admin', passwordStdin: true });
    assert.equal(ctx.globals.url, opts.url, 'the global option, read back');
    assert.deepEqual((await parseWithSpy('compute', computeAddCommand, ['--url', 'http://h:1', 'compute', 'add', 'r1'])).opts,
      { name: 'r1', url: 'http://h:1', user: undefined, passwordStdin: false });
  });

  it('a password is never an argument; the name is required', async () => {
    await assert.rejects(parseWithSpy('compute', computeAddCommand, ['compute', 'add', 'r1', '--password', 'x']), isUsage);
    await assert.rejects(parseWithSpy('compute', computeAddCommand, ['compute', 'add']), isUsage);
  });
});

describe('compute list, show, remove', () => {
  it('list (alias ls) takes nothing; show and remove (alias rm) take a compute', async () => {
    assert.deepEqual((await parseWithSpy('compute', computeListCommand, ['compute', 'ls'])).opts, {});
    assert.deepEqual((await parseWithSpy('compute', computeShowCommand, ['compute', 'show', 'local'])).opts, { compute: 'local' });
    assert.deepEqual((await parseWithSpy('compute', computeRemoveCommand, ['compute', 'rm', 'r1'])).opts, { compute: 'r1' });
    await assert.rejects(parseWithSpy('compute', computeShowCommand, ['compute', 'show']), isUsage);
    await assert.rejects(parseWithSpy('compute', computeRemoveCommand, ['compute', 'remove']), isUsage);
    await assert.rejects(parseWithSpy('compute', computeListCommand, ['compute', 'list', 'x']), isUsage);
  });
});

describe('compute call', () => {
  const parse = (...args: string[]) => parseWithSpy('compute', computeCallCommand, ['compute', 'call', ...args]);

  it('compute, emulator, action; --method (any case) and --data kept as given', async () => {
    assert.deepEqual((await parse('local', 'network', 'interfaces')).opts,
      { compute: 'local', emulator: 'network', action: 'interfaces', method: undefined, data: undefined });
    assert.deepEqual((await parse('--method', 'put', 'r1', 'projects', 'abc/x', '--data', '@body.json')).opts,
      { compute: 'r1', emulator: 'projects', action: 'abc/x', method: 'PUT', data: '@body.json' });
    assert.equal((await parse('r1', 'projects', 'a', '--data', '-')).opts.data, '-');
  });

  it('rejects an unknown method and missing arguments', async () => {
    await assert.rejects(parse('--method', 'DELETE', 'r1', 'network', 'interfaces'), isUsage);
    await assert.rejects(parse('r1', 'network'), isUsage);
  });
});

describe('compute client helpers', () => {
  it('computeAddressOf: protocol, host and port; default ports of the scheme; IPv6', () => {
    assert.deepEqual(computeAddressOf('http://10.0.0.2:3080'), { protocol: 'http', host: '10.0.0.2', port: 3080 });
    assert.deepEqual(computeAddressOf('https://lab.example/'), { protocol: 'https', host: 'lab.example', port: 443 });
    assert.deepEqual(computeAddressOf('http://[::1]:4000'), { protocol: 'http', host: '::1', port: 4000 });
    for (const bad of ['lab:3080', 'ftp://h:1', 'http://h:1/v2', 'http://h:1/?x=1', 'http://a:b@h:1']) {
      assert.throws(() => computeAddressOf(bad), UsageError, bad);
    }
  });

  it('computeUrl: IPv6 hosts in brackets', () => {
    assert.equal(computeUrl({ protocol: 'http', host: '::1', port: 4000 }), 'http://[::1]:4000');
    assert.equal(computeUrl({ protocol: 'https', host: 'h', port: 443 }), 'https://h:443');
  });

  it('forwardPath: segments escaped one by one, the query string kept', () => {
    assert.equal(forwardPath('local', 'network', 'interfaces'), 'computes/local/network/interfaces');
    assert.equal(forwardPath('r 1', 'projects', 'p1/ports/udp'), 'computes/r%201/projects/p1/ports/udp');
    assert.equal(forwardPath('local', 'x', 'a/b?q=1&r=a%20b'), 'computes/local/x/a/b?q=1&r=a+b');
    assert.equal(forwardPath('local', 'x', '/a//b/'), 'computes/local/x/a/b');
    assert.throws(() => forwardPath('local', 'x', '/'), UsageError);
  });

  it('answerText: tables for lists of flat objects, fields for a flat object, JSON otherwise', () => {
    assert.equal(answerText([{ id: 'lo', ip_address: '127.0.0.1' }, { id: 'eth0', special: false }], PLAIN),
      'ID    IP ADDRESS  SPECIAL\nlo    127.0.0.1   -\neth0  -           false\n');
    assert.equal(answerText({ udp_port: 10001 }, PLAIN), 'udp_port:  10001\n');
    assert.equal(answerText({ a: [1] }, PLAIN), '{\n  "a": [\n    1\n  ]\n}\n');
    assert.equal(answerText([], PLAIN), '[]\n');
    assert.equal(answerText(undefined, PLAIN), '');
  });
});
