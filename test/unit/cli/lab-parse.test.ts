// argv → options for the lab verbs, node exec and node ssh, with a spy in place of run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { labDownCommand } from '../../../src/commands/lab/down.js';
import { labGraphCommand } from '../../../src/commands/lab/graph.js';
import { labInspectCommand } from '../../../src/commands/lab/inspect.js';
import { labInventoryCommand } from '../../../src/commands/lab/inventory.js';
import { labSaveCommand } from '../../../src/commands/lab/save.js';
import { isLabFile } from '../../../src/commands/lab/shared.js';
import { labTestCommand } from '../../../src/commands/lab/test.js';
import { labUpCommand } from '../../../src/commands/lab/up.js';
import { labWaitCommand } from '../../../src/commands/lab/wait.js';
import { nodeExecCommand } from '../../../src/commands/node/exec.js';
import { nodeSshCommand } from '../../../src/commands/node/ssh.js';
import { parsePingPair } from '../../../src/lab/wait.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;

describe('lab verbs parse', () => {
  it('lab up FILE [--dry-run] (with the global --profile)', async () => {
    const { opts, ctx } = await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'lab.yml', '--dry-run', '--profile', 'remote']);
    assert.deepEqual(opts, { file: 'lab.yml', dryRun: true });
    assert.equal(ctx.globals.profile, 'remote');
    assert.deepEqual((await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'x.yml'])).opts, { file: 'x.yml', dryRun: false });
    await assert.rejects(parseWithSpy('lab', labUpCommand, ['lab', 'up']), isUsage);
  });

  it('lab up FILE --concurrency N: a whole number 1-256', async () => {
    assert.deepEqual((await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml', '--concurrency', '4'])).opts, { file: 'l.yml', dryRun: false, concurrency: 4 });
    for (const bad of ['0', '2.5', 'many', '257']) await assert.rejects(parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml', '--concurrency', bad]), isUsage);
  });

  it('EMUCTL_LAB_CONCURRENCY sets --concurrency when the flag is not given, checked the same way', async (t) => {
    const before = process.env.EMUCTL_LAB_CONCURRENCY;
    t.after(() => (before === undefined ? delete process.env.EMUCTL_LAB_CONCURRENCY : (process.env.EMUCTL_LAB_CONCURRENCY = before)));
    process.env.EMUCTL_LAB_CONCURRENCY = '3';
    assert.deepEqual((await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml'])).opts, { file: 'l.yml', dryRun: false, concurrency: 3 });
    assert.deepEqual((await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml', '--concurrency', '5'])).opts, { file: 'l.yml', dryRun: false, concurrency: 5 });
    process.env.EMUCTL_LAB_CONCURRENCY = 'many';
    await assert.rejects(parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml']), isUsage);
  });

  it('lab up FILE --nodes A,B --test [--only NAME…] [--junit FILE] [--tap]; the report options need --test', async () => {
    assert.deepEqual((await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml', '--nodes', 'R1, R2,H1', '--test', '--junit', 'r.xml', '--only', 'a', 'b c'])).opts,
      { file: 'l.yml', dryRun: false, nodes: ['R1', 'R2', 'H1'], test: { only: ['a', 'b c'], junit: 'r.xml', tap: false } });
    assert.deepEqual((await parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml', '--test', '--tap'])).opts, { file: 'l.yml', dryRun: false, test: { only: [], junit: undefined, tap: true } });
    await assert.rejects(parseWithSpy('lab', labUpCommand, ['lab', 'up', 'l.yml', '--junit', 'r.xml']), /--only, --junit and --tap go with --test/);
  });

  it('lab test FILE [--only NAME…] [--junit FILE] [--tap]', async () => {
    assert.deepEqual((await parseWithSpy('lab', labTestCommand, ['lab', 'test', 'l.yml'])).opts, { file: 'l.yml', only: [], junit: undefined, tap: false });
    assert.deepEqual((await parseWithSpy('lab', labTestCommand, ['lab', 'test', 'l.yml', '--only', 'H1 pings H2', '--junit', 'out.xml', '--tap', '--json'])).opts,
      { file: 'l.yml', only: ['H1 pings H2'], junit: 'out.xml', tap: true });
    await assert.rejects(parseWithSpy('lab', labTestCommand, ['lab', 'test']), isUsage);
  });

  it('lab down FILE|NAME [--keep]', async () => {
    assert.deepEqual((await parseWithSpy('lab', labDownCommand, ['lab', 'down', 'two-sites', '--keep'])).opts, { lab: 'two-sites', keep: true });
    assert.deepEqual((await parseWithSpy('lab', labDownCommand, ['lab', 'down', 'a.yaml'])).opts, { lab: 'a.yaml', keep: false });
  });

  it('lab inspect FILE|NAME [names...]', async () => {
    assert.deepEqual((await parseWithSpy('lab', labInspectCommand, ['lab', 'inspect', 'l.yml', 'PC1', 'PC1:0/0-SW1:0/0', '--json'])).opts,
      { lab: 'l.yml', only: ['PC1', 'PC1:0/0-SW1:0/0'] });
  });

  it('lab graph: --format ascii by default, the four formats, -o; another format is a usage error', async () => {
    assert.deepEqual((await parseWithSpy('lab', labGraphCommand, ['lab', 'graph', 'l.yml'])).opts, { lab: 'l.yml', format: 'ascii', output: undefined });
    assert.deepEqual((await parseWithSpy('lab', labGraphCommand, ['lab', 'graph', 'l.yml', '-f', 'svg', '-o', 'l.svg'])).opts, { lab: 'l.yml', format: 'svg', output: 'l.svg' });
    for (const format of ['dot', 'mermaid']) assert.equal((await parseWithSpy('lab', labGraphCommand, ['lab', 'graph', 'n', '--format', format])).opts.format, format);
    await assert.rejects(parseWithSpy('lab', labGraphCommand, ['lab', 'graph', 'n', '-f', 'png']), isUsage);
    assert.deepEqual((await parseWithSpy('lab', labGraphCommand, ['lab', 'graph', 'l.yml', '--mgmt'])).opts, { lab: 'l.yml', format: 'ascii', output: undefined, mgmt: true });
  });

  it('lab save NAME [-o FILE]', async () => {
    assert.deepEqual((await parseWithSpy('lab', labSaveCommand, ['lab', 'save', 'p', '-o', 'p.yml'])).opts, { project: 'p', output: 'p.yml' });
  });

  it('lab wait: --ping repeated, --configured, --timeout (default 60), --ping or --configured required', async () => {
    assert.deepEqual((await parseWithSpy('lab', labWaitCommand, ['lab', 'wait', 'l.yml', '--ping', 'PC1:PC2', '--ping', 'PC2:10.0.0.1', '-t', '5'])).opts,
      { lab: 'l.yml', pings: ['PC1:PC2', 'PC2:10.0.0.1'], configured: false, timeoutSeconds: 5 });
    assert.deepEqual((await parseWithSpy('lab', labWaitCommand, ['lab', 'wait', 'ring', '--configured'])).opts,
      { lab: 'ring', pings: [], configured: true, timeoutSeconds: 60 });
    assert.equal((await parseWithSpy('lab', labWaitCommand, ['lab', 'wait', 'l', '--ping', 'A:B'])).opts.timeoutSeconds, 60);
    await assert.rejects(parseWithSpy('lab', labWaitCommand, ['lab', 'wait', 'l']), /give --configured or at least one --ping A:B/);
    await assert.rejects(parseWithSpy('lab', labWaitCommand, ['lab', 'wait', 'l', '--ping', 'A:B', '-t', '0']), isUsage);
    assert.deepEqual(parsePingPair('PC1:10.0.0.2'), { from: 'PC1', to: '10.0.0.2' });
    assert.throws(() => parsePingPair('PC1'), /"PC1" is not a ping pair: expected FROM:TO/);
  });

  it('FILE or NAME: a path or a .yml/.yaml/.json name is a file, anything else a project name', () => {
    assert.deepEqual(['lab.yml', 'x.YAML', 'a/b', './lab', 'two-sites', 'lab'].map(isLabFile), [true, true, true, true, false, false]);
  });
});

describe('lab inventory parses', () => {
  it('lab inventory FILE|NAME [--format F] [-o PATH]: ansible by default, the five formats, nothing else', async () => {
    assert.deepEqual((await parseWithSpy('lab', labInventoryCommand, ['lab', 'inventory', 'l.yml'])).opts, { lab: 'l.yml', format: 'ansible' });
    for (const format of ['ansible', 'nornir', 'ssh-config', 'hosts', 'json']) {
      assert.deepEqual((await parseWithSpy('lab', labInventoryCommand, ['lab', 'inventory', 'demo', '--format', format, '-o', 'out'])).opts, { lab: 'demo', format, output: 'out' });
    }
    await assert.rejects(parseWithSpy('lab', labInventoryCommand, ['lab', 'inventory', 'demo', '-f', 'csv']), isUsage);
    await assert.rejects(parseWithSpy('lab', labInventoryCommand, ['lab', 'inventory']), isUsage);
  });
});

describe('node ssh parses', () => {
  it('node ssh NODE [-p P]: a session; after --, a command whose words stay as given', async () => {
    assert.deepEqual((await parseWithSpy('node', nodeSshCommand, ['node', 'ssh', 'R1'])).opts, { node: 'R1', command: [] });
    assert.deepEqual((await parseWithSpy('node', nodeSshCommand, ['node', 'ssh', 'R1', '-p', 'lab', '--', 'vtysh', '-c', 'show ip route', '-x'])).opts,
      { node: 'R1', command: ['vtysh', '-c', 'show ip route', '-x'], project: 'lab' });
    await assert.rejects(parseWithSpy('node', nodeSshCommand, ['node', 'ssh']), isUsage);
  });
});

describe('node exec parses', () => {
  it('NODE -- COMMAND…: the words after -- are the command, options among them included', async () => {
    const { opts } = await parseWithSpy('node', nodeExecCommand, ['node', 'exec', 'PC1', '-p', 'lab', '--', 'ping', '10.0.0.2', '-c', '3']);
    assert.deepEqual(opts, { nodes: ['PC1'], words: ['ping', '10.0.0.2', '-c', '3'], timeoutSeconds: 30, project: 'lab' });
  });

  it('the words stay words: an argument with spaces (vtysh -c "show ip ospf neighbor") is one word, not split again', async () => {
    const { opts } = await parseWithSpy('node', nodeExecCommand, ['node', 'exec', 'R1', '--', 'vtysh', '-c', 'show ip ospf neighbor']);
    assert.deepEqual(opts.words, ['vtysh', '-c', 'show ip ospf neighbor']);
  });

  it('-n N1,N2 -- COMMAND…: every word is the command; --timeout', async () => {
    const { opts } = await parseWithSpy('node', nodeExecCommand, ['node', 'exec', '-n', 'PC1, PC2', '--timeout', '4', '--', 'show', 'ip']);
    assert.deepEqual(opts, { nodes: ['PC1', 'PC2'], words: ['show', 'ip'], timeoutSeconds: 4, project: undefined });
  });
});
