// `emuctl switch …`: argv → options, with a spy in place of run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command, CommanderError } from 'commander';
import type { Context, Factory } from '../../../src/cli/context.js';
import { accessPorts, computeSwitchPath } from '../../../src/client/switches.js';
import { switchCreateCommand } from '../../../src/commands/switch/create.js';
import { switchDeleteCommand } from '../../../src/commands/switch/delete.js';
import { switchListCommand } from '../../../src/commands/switch/list.js';
import { switchMacTableCommand } from '../../../src/commands/switch/mac-table.js';
import { switchNioAddCommand } from '../../../src/commands/switch/nio-add.js';
import { switchNioRemoveCommand } from '../../../src/commands/switch/nio-remove.js';
import { nioText } from '../../../src/commands/switch/render.js';
import { switchSetPortCommand } from '../../../src/commands/switch/set-port.js';
import { switchShowCommand } from '../../../src/commands/switch/show.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

function isUsage(err: unknown): boolean {
  return err instanceof CommanderError && err.exitCode !== 0;
}

/** A `switch nio <verb>` builder placed under its `nio` group, for parseWithSpy at the root. */
function underNio<O>(build: (f: Factory, run: (opts: O, ctx: Context) => Promise<void>) => Command) {
  return (f: Factory, run: (opts: O, ctx: Context) => Promise<void>) =>
    new Command('switch').addCommand(new Command('nio').addCommand(build(f, run)));
}

const UUID = '3f2a9c1e-0b7d-4e55-9a61-2c8f0e4d7b13';
const PROJECT = '9b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';

describe('switch create and list', () => {
  it('create: name, --ports (default 8), -c/--compute, -p/--project', async () => {
    assert.deepEqual((await parseWithSpy('switch', switchCreateCommand, ['switch', 'create', 'SW1'])).opts, { name: 'SW1', ports: 8, compute: undefined, project: undefined });
    assert.deepEqual((await parseWithSpy('switch', switchCreateCommand, ['switch', 'create', 'SW1', '--ports', '24', '-c', 'remote', '-p', 'lab'])).opts,
      { name: 'SW1', ports: 24, compute: 'remote', project: 'lab' });
    assert.deepEqual((await parseWithSpy('switch', switchCreateCommand, ['switch', 'create', 'SW1', '--project', 'lab', '--json'])).opts.project, 'lab');
  });

  it('create: --ports is 1-1024; the name is required', async () => {
    for (const bad of ['0', '1025', 'x', '-1', '2.5']) {
      await assert.rejects(parseWithSpy('switch', switchCreateCommand, ['switch', 'create', 'SW1', '--ports', bad]), isUsage, bad);
    }
    await assert.rejects(parseWithSpy('switch', switchCreateCommand, ['switch', 'create']), isUsage);
  });

  it('list (alias ls): -p only', async () => {
    assert.deepEqual((await parseWithSpy('switch', switchListCommand, ['switch', 'ls'])).opts, { project: undefined });
    assert.deepEqual((await parseWithSpy('switch', switchListCommand, ['switch', 'list', '-p', 'lab'])).opts, { project: 'lab' });
    await assert.rejects(parseWithSpy('switch', switchListCommand, ['switch', 'list', 'extra']), isUsage);
  });
});

describe('switch show, mac-table and delete', () => {
  it('take a switch and -p', async () => {
    assert.deepEqual((await parseWithSpy('switch', switchShowCommand, ['switch', 'show', 'SW1', '-p', 'lab'])).opts, { switch: 'SW1', project: 'lab' });
    assert.deepEqual((await parseWithSpy('switch', switchMacTableCommand, ['switch', 'mac-table', 'SW1'])).opts, { switch: 'SW1', project: undefined });
    assert.deepEqual((await parseWithSpy('switch', switchDeleteCommand, ['switch', 'rm', UUID])).opts, { switch: UUID, project: undefined });
    await assert.rejects(parseWithSpy('switch', switchShowCommand, ['switch', 'show']), isUsage);
    await assert.rejects(parseWithSpy('switch', switchDeleteCommand, ['switch', 'delete']), isUsage);
  });
});

describe('switch set-port', () => {
  const parse = (...args: string[]) => parseWithSpy('switch', switchSetPortCommand, ['switch', 'set-port', 'SW1', ...args]);

  it('port (number or name), --type, --vlan, --ethertype in GNS3 spelling', async () => {
    assert.deepEqual((await parse('3', '--type', 'dot1q', '--vlan', '10')).opts,
      { switch: 'SW1', port: '3', type: 'dot1q', vlan: 10, ethertype: undefined, project: undefined });
    assert.deepEqual((await parse('Ethernet2', '--type', 'QINQ', '--vlan', '4094', '--ethertype', '0x88a8', '-p', 'lab')).opts,
      { switch: 'SW1', port: 'Ethernet2', type: 'qinq', vlan: 4094, ethertype: '0x88A8', project: 'lab' });
    assert.equal((await parse('2', '--ethertype', '9100')).opts.ethertype, '0x9100');
    assert.deepEqual((await parse('1', '--vlan', '1')).opts.type, undefined, 'options not given keep the port\'s values');
  });

  it('rejects a bad type, VLAN or ethertype as usage errors', async () => {
    for (const args of [['--type', 'trunk'], ['--vlan', '0'], ['--vlan', '4095'], ['--vlan', 'ten'], ['--ethertype', '0x1234'], ['--ethertype', '0x810']]) {
      await assert.rejects(parse('1', ...args), isUsage, args.join(' '));
    }
    await assert.rejects(parseWithSpy('switch', switchSetPortCommand, ['switch', 'set-port', 'SW1']), isUsage);
  });
});

describe('switch nio add and remove', () => {
  const add = (...args: string[]) => parseWithSpy(null, underNio(switchNioAddCommand), ['switch', 'nio', 'add', ...args]);
  const remove = (...args: string[]) => parseWithSpy(null, underNio(switchNioRemoveCommand), ['switch', 'nio', ...args]);

  it('add: switch, port, --lport, --rhost, --rport, --adapter (default 0), -p', async () => {
    assert.deepEqual((await add(UUID, '0', '--lport', '10001', '--rhost', '127.0.0.1', '--rport', '10002', '--project', PROJECT)).opts,
      { switch: UUID, port: 0, adapter: 0, lport: 10001, rhost: '127.0.0.1', rport: 10002, project: PROJECT });
    assert.deepEqual((await add('SW1', '7', '--lport', '1', '--rhost', 'h', '--rport', '65535', '--adapter', '0')).opts,
      { switch: 'SW1', port: 7, adapter: 0, lport: 1, rhost: 'h', rport: 65535, project: undefined });
  });

  it('add: --lport, --rhost and --rport are required; ports are 1-65535; PORT is digits', async () => {
    await assert.rejects(add('SW1', '0', '--rhost', 'h', '--rport', '2'), isUsage);
    await assert.rejects(add('SW1', '0', '--lport', '1', '--rport', '2'), isUsage);
    await assert.rejects(add('SW1', '0', '--lport', '1', '--rhost', 'h'), isUsage);
    await assert.rejects(add('SW1', '0', '--lport', '0', '--rhost', 'h', '--rport', '2'), isUsage);
    await assert.rejects(add('SW1', '0', '--lport', '1', '--rhost', 'h', '--rport', '65536'), isUsage);
    await assert.rejects(add('SW1', 'e0', '--lport', '1', '--rhost', 'h', '--rport', '2'), isUsage);
    await assert.rejects(add('SW1', '0', '--lport', '1', '--rhost', 'h', '--rport', '2', '--adapter', 'a'), isUsage);
    await assert.rejects(add('SW1', '--lport', '1', '--rhost', 'h', '--rport', '2'), isUsage);
  });

  it('remove (alias rm): switch, port, --adapter, -p', async () => {
    assert.deepEqual((await remove('remove', 'SW1', '3')).opts, { switch: 'SW1', port: 3, adapter: 0, project: undefined });
    assert.deepEqual((await remove('rm', UUID, '0', '--adapter', '0', '-p', PROJECT)).opts, { switch: UUID, port: 0, adapter: 0, project: PROJECT });
    await assert.rejects(remove('remove', 'SW1'), isUsage);
  });
});

describe('switch client and rendering helpers', () => {
  it('accessPorts: GNS3 default layout', () => {
    assert.deepEqual(accessPorts(2), [
      { name: 'Ethernet0', port_number: 0, type: 'access', vlan: 1, ethertype: '' },
      { name: 'Ethernet1', port_number: 1, type: 'access', vlan: 1, ethertype: '' },
    ]);
  });

  it('computeSwitchPath: the server\'s own compute directly, another compute through the forward route', () => {
    const at = { projectId: PROJECT, nodeId: UUID };
    assert.equal(computeSwitchPath(at, 'stats'), `compute/projects/${PROJECT}/ethernet_switch/nodes/${UUID}/stats`);
    assert.equal(computeSwitchPath({ ...at, computeId: 'local' }, 'mac_table'), `compute/projects/${PROJECT}/ethernet_switch/nodes/${UUID}/mac_table`);
    assert.equal(computeSwitchPath({ ...at, computeId: 'r 1' }, 'stats'), `computes/r%201/projects/${PROJECT}/ethernet_switch/nodes/${UUID}/stats`);
  });

  it('nioText: lport->rhost:rport, IPv6 in brackets, suspended marked, none as -', () => {
    assert.equal(nioText({ type: 'nio_udp', lport: 1, rhost: '127.0.0.1', rport: 2 }), '1->127.0.0.1:2');
    assert.equal(nioText({ type: 'nio_udp', lport: 1, rhost: '::1', rport: 2, suspend: true }), '1->[::1]:2 (suspended)');
    assert.equal(nioText({ type: 'nio_null' }), 'nio_null');
    assert.equal(nioText(null), '-');
  });
});
