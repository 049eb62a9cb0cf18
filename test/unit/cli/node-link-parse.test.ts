// First of the two tests per command for the node and link nouns: argv → options, with a spy run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { linkCreateCommand } from '../../../src/commands/link/create.js';
import { linkDeleteCommand } from '../../../src/commands/link/delete.js';
import { linkFilterCommand } from '../../../src/commands/link/filter.js';
import { linkListCommand } from '../../../src/commands/link/list.js';
import { linkResumeCommand } from '../../../src/commands/link/resume.js';
import { linkShowCommand } from '../../../src/commands/link/show.js';
import { linkSuspendCommand } from '../../../src/commands/link/suspend.js';
import { nodeConsoleCommand } from '../../../src/commands/node/console.js';
import { nodeCreateCommand } from '../../../src/commands/node/create.js';
import { nodeDeleteCommand } from '../../../src/commands/node/delete.js';
import { nodeListCommand } from '../../../src/commands/node/list.js';
import { nodeShowCommand } from '../../../src/commands/node/show.js';
import { nodeStartCommand } from '../../../src/commands/node/start.js';
import { nodeStopCommand } from '../../../src/commands/node/stop.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

function isUsage(err: unknown): boolean {
  return err instanceof CommanderError && err.exitCode !== 0;
}

describe('node verbs', () => {
  it('node list (alias ls): --project / -p', async () => {
    assert.deepEqual((await parseWithSpy('node', nodeListCommand, ['node', 'list'])).opts, { project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeListCommand, ['node', 'ls', '-p', 'lab'])).opts, { project: 'lab' });
    const json = await parseWithSpy('node', nodeListCommand, ['node', 'list', '--project', 'lab', '--json']);
    assert.deepEqual([json.opts, json.ctx.globals.json], [{ project: 'lab' }, true]);
  });

  it('node create: NAME (--type T | --template T) [--compute C] [-p P]', async () => {
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'PC1', '--type', 'vpcs'])).opts,
      { name: 'PC1', type: 'vpcs', template: undefined, compute: undefined, project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'SW1', '-t', 'ethernet_switch', '-c', 'remote', '-p', 'lab'])).opts,
      { name: 'SW1', type: 'ethernet_switch', template: undefined, compute: 'remote', project: 'lab' });
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'H1', '--compute', 'local', '--type', 'ethernet_hub'])).opts,
      { name: 'H1', type: 'ethernet_hub', template: undefined, compute: 'local', project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'R1', '-t', 'qemu', '--image', 'vyos.qcow2', '--ram', '512', '--cpus', '2',
      '--adapters', '4', '--adapter-type', 'virtio-net-pci', '--kernel', 'k', '--initrd', 'i', '--append', 'console=ttyS0', '--option', '-cpu max', '--option', '-smp 2'])).opts,
    { name: 'R1', type: 'qemu', template: undefined, compute: undefined, project: undefined, image: 'vyos.qcow2', ram: 512, cpus: 2, adapters: 4, adapterType: 'virtio-net-pci',
      kernel: 'k', initrd: 'i', append: 'console=ttyS0', option: ['-cpu max', '-smp 2'] });
    await assert.rejects(parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'R1', '-t', 'qemu', '--ram', '0']), isUsage);
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'R1', '-t', 'docker', '--image', 'frrouting/frr:v8.4.0', '--adapters', '3',
      '--start-command', 'sh -c "run it"', '--env', 'A=1', '--env', 'B=x y'])).opts,
    { name: 'R1', type: 'docker', template: undefined, compute: undefined, project: undefined, image: 'frrouting/frr:v8.4.0', adapters: 3,
      startCommand: 'sh -c "run it"', env: ['A=1', 'B=x y'] });
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'C1', '-t', 'cloud', '--interface', 'eth1', '--interface', 'tap:t0'])).opts,
      { name: 'C1', type: 'cloud', template: undefined, compute: undefined, project: undefined, interface: ['eth1', 'tap:t0'] });
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'PC9', '--template', 'VPCS'])).opts,
      { name: 'PC9', type: undefined, template: 'VPCS', compute: undefined, project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'R1', '-T', '19021f99', '-p', 'lab'])).opts,
      { name: 'R1', type: undefined, template: '19021f99', compute: undefined, project: 'lab' });
    await assert.rejects(parseWithSpy('node', nodeCreateCommand, ['node', 'create', '--type', 'vpcs']), isUsage);
    await assert.rejects(parseWithSpy('node', nodeCreateCommand, ['node', 'create', 'PC1', '--template']), isUsage);
  });

  it('node show / delete (alias rm): NODE [-p P]', async () => {
    assert.deepEqual((await parseWithSpy('node', nodeShowCommand, ['node', 'show', 'PC1', '-p', 'lab'])).opts, { node: 'PC1', project: 'lab' });
    assert.deepEqual((await parseWithSpy('node', nodeDeleteCommand, ['node', 'rm', '1a2b'])).opts, { node: '1a2b', project: undefined });
    await assert.rejects(parseWithSpy('node', nodeShowCommand, ['node', 'show']), isUsage);
    await assert.rejects(parseWithSpy('node', nodeDeleteCommand, ['node', 'delete']), isUsage);
  });

  it('node start / stop: NODE or --all (checked by run)', async () => {
    assert.deepEqual((await parseWithSpy('node', nodeStartCommand, ['node', 'start', 'PC1'])).opts, { node: 'PC1', all: false, project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeStartCommand, ['node', 'start', '--all', '-p', 'lab'])).opts, { node: undefined, all: true, project: 'lab' });
    assert.deepEqual((await parseWithSpy('node', nodeStopCommand, ['node', 'stop', '-a'])).opts, { node: undefined, all: true, project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeStopCommand, ['node', 'stop', 'PC1', '--project', 'p'])).opts, { node: 'PC1', all: false, project: 'p' });
  });

  it('node console: NODE [--print] [--websocket]', async () => {
    assert.deepEqual((await parseWithSpy('node', nodeConsoleCommand, ['node', 'console', 'PC1'])).opts, { node: 'PC1', print: false, websocket: false, project: undefined });
    assert.deepEqual((await parseWithSpy('node', nodeConsoleCommand, ['node', 'console', 'PC1', '--print', '-p', 'lab'])).opts, { node: 'PC1', print: true, websocket: false, project: 'lab' });
    assert.deepEqual((await parseWithSpy('node', nodeConsoleCommand, ['node', 'console', 'PC1', '--websocket'])).opts, { node: 'PC1', print: false, websocket: true, project: undefined });
    await assert.rejects(parseWithSpy('node', nodeConsoleCommand, ['node', 'console']), isUsage);
  });
});

describe('link verbs', () => {
  it('link list (alias ls)', async () => {
    assert.deepEqual((await parseWithSpy('link', linkListCommand, ['link', 'ls', '-p', 'lab'])).opts, { project: 'lab' });
  });

  it('link create: two ends, taken as written (parsed by run)', async () => {
    assert.deepEqual((await parseWithSpy('link', linkCreateCommand, ['link', 'create', 'PC1:0/0', 'SW1:Ethernet3', '-p', 'lab'])).opts,
      { a: 'PC1:0/0', b: 'SW1:Ethernet3', project: 'lab' });
    await assert.rejects(parseWithSpy('link', linkCreateCommand, ['link', 'create', 'PC1:0/0']), isUsage);
  });

  it('link show / delete (alias rm) / suspend / resume: LINK [-p P]', async () => {
    assert.deepEqual((await parseWithSpy('link', linkShowCommand, ['link', 'show', 'PC1:0/0-SW1:0/0'])).opts, { link: 'PC1:0/0-SW1:0/0', project: undefined });
    assert.deepEqual((await parseWithSpy('link', linkDeleteCommand, ['link', 'rm', 'ab12', '-p', 'x'])).opts, { link: 'ab12', project: 'x' });
    assert.deepEqual((await parseWithSpy('link', linkSuspendCommand, ['link', 'suspend', 'SW1:0-PC1:0'])).opts, { link: 'SW1:0-PC1:0', project: undefined });
    assert.deepEqual((await parseWithSpy('link', linkResumeCommand, ['link', 'resume', 'L', '--project', 'p'])).opts, { link: 'L', project: 'p' });
    await assert.rejects(parseWithSpy('link', linkShowCommand, ['link', 'show']), isUsage);
    await assert.rejects(parseWithSpy('link', linkDeleteCommand, ['link', 'delete']), isUsage);
    await assert.rejects(parseWithSpy('link', linkSuspendCommand, ['link', 'suspend']), isUsage);
    await assert.rejects(parseWithSpy('link', linkResumeCommand, ['link', 'resume']), isUsage);
  });

  it('link filter: every filter option as an integer, repeated --bpf, --clear', async () => {
    const { opts } = await parseWithSpy('link', linkFilterCommand, ['link', 'filter', 'L', '--delay', '50', '--jitter', '5', '--loss', '1',
      '--corrupt', '0', '--frequency-drop', '-1', '--bpf', 'icmp', '--bpf', 'arp', '--rate', '1000', '--duplicate', '2', '-p', 'lab']);
    assert.deepEqual(opts, {
      link: 'L', clear: false, project: 'lab',
      changes: { delay: 50, jitter: 5, loss: 1, corrupt: 0, frequencyDrop: -1, bpf: ['icmp', 'arp'], rate: 1000, duplicate: 2 },
    });
    assert.deepEqual((await parseWithSpy('link', linkFilterCommand, ['link', 'filter', 'L', '--clear'])).opts,
      { link: 'L', clear: true, project: undefined, changes: {} });
    assert.deepEqual((await parseWithSpy('link', linkFilterCommand, ['link', 'filter', 'L', '--frequency-drop=-1', '--bpf', ''])).opts.changes,
      { frequencyDrop: -1, bpf: [''] });
  });

  it('link filter: bad numbers are usage errors', async () => {
    for (const bad of [['--delay', 'abc'], ['--delay', '-5'], ['--delay', '1.5'], ['--jitter', 'x'], ['--loss', '101'], ['--loss', '-1'],
      ['--corrupt', '200'], ['--frequency-drop', '-2'], ['--rate', '-1'], ['--duplicate', '5%']]) {
      await assert.rejects(parseWithSpy('link', linkFilterCommand, ['link', 'filter', 'L', ...bad]), isUsage, bad.join(' '));
    }
  });
});
