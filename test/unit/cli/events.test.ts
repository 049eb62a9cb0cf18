// `emuctl events`: argv → options (spy run), the filters, and the human description of events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import type { ReceivedNotification } from '../../../src/client/notifications.js';
import { changes, EventDescriber } from '../../../src/commands/events/describe.js';
import { actionMatches, EventGate } from '../../../src/commands/events/filters.js';
import { eventsCommand } from '../../../src/commands/events/index.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;
const parse = (argv: string[]) => parseWithSpy(null, eventsCommand, argv);
const received = (action: string, event: Record<string, unknown>): ReceivedNotification => ({ action, event, text: JSON.stringify({ action, event }) });

describe('events: argv → options', () => {
  it('defaults: the default stream, every event, reconnecting, no pings', async () => {
    assert.deepEqual((await parse(['events'])).opts, {
      project: undefined, controller: false, types: undefined, count: undefined, until: undefined, pings: false, reconnect: true,
    });
  });

  it('every option', async () => {
    const { opts, ctx } = await parse(['events', '-p', 'lab', '--type', 'node.updated, link.*', '-c', '5', '--until', 'node.updated:PC 1', '--pings', '--no-reconnect', '--json']);
    assert.deepEqual(opts, {
      project: 'lab', controller: false, types: ['node.updated', 'link.*'], count: 5, until: { action: 'node.updated', name: 'PC 1' }, pings: true, reconnect: false,
    });
    assert.equal(ctx.globals.json, true);
    assert.deepEqual((await parse(['events', '--controller', '--until', 'compute.*'])).opts.until, { action: 'compute.*', name: undefined });
    assert.equal((await parse(['events', '--controller'])).opts.controller, true);
  });

  it('bad values are usage errors', async () => {
    for (const argv of [['events', '-c', '0'], ['events', '-c', 'x'], ['events', '--type', ','], ['events', '--type', 'node updated'],
      ['events', '--until', ':PC1'], ['events', '--until', 'node.updated:'], ['events', '--nope']]) {
      await assert.rejects(parse(argv), isUsage, argv.join(' '));
    }
  });
});

describe('events: filters', () => {
  it('* matches any run of characters, nothing else is special', () => {
    assert.ok(actionMatches('link.*', 'link.updated'));
    assert.ok(actionMatches('*.deleted', 'node.deleted'));
    assert.ok(actionMatches('node.updated', 'node.updated'));
    assert.ok(!actionMatches('node.updated', 'node.updatedX'));
    assert.ok(!actionMatches('node.*', 'nodeXupdated'), 'the dot is a dot');
    assert.ok(!actionMatches('link.*', 'node.updated'));
  });

  it('-c counts shown events only, never pings', () => {
    const gate = new EventGate({ count: 2, pings: true, types: ['node.*'] });
    assert.equal(gate.shows('ping'), true);
    assert.equal(gate.done('ping', undefined, true), false);
    assert.equal(gate.shows('link.created'), false);
    assert.equal(gate.done('link.created', 'x', false), false);
    assert.equal(gate.done('node.created', 'PC1', true), false);
    assert.equal(gate.done('node.updated', 'PC1', true), true);
  });

  it('--until: the action, and the name when given', () => {
    const gate = new EventGate({ until: { action: 'node.updated', name: 'PC1' }, pings: false });
    assert.equal(gate.shows('ping'), false);
    assert.equal(gate.done('node.updated', 'PC2', true), false);
    assert.equal(gate.done('node.created', 'PC1', true), false);
    assert.equal(gate.done('node.updated', 'PC1', true), true);
    assert.equal(new EventGate({ until: { action: 'link.*' }, pings: false }).done('link.deleted', 'a-b', false), true, 'even when --type hides it');
  });
});

describe('events: what a human line says', () => {
  it('names objects and says what changed since the last time it saw them', () => {
    const d = new EventDescriber();
    const pc = { node_id: 'n1', name: 'PC1', node_type: 'vpcs', compute_id: 'local', status: 'stopped' };
    const sw = { node_id: 'n2', name: 'SW1', node_type: 'ethernet_switch', compute_id: 'local', status: 'started' };
    d.seed('node', [sw]);
    assert.deepEqual(d.describe(received('node.created', pc)), { name: 'PC1', change: 'vpcs on local' });
    assert.deepEqual(d.describe(received('node.updated', { ...pc, status: 'started' })), { name: 'PC1', change: 'status stopped→started' });
    const link = { link_id: 'l1', capturing: false, nodes: [{ node_id: 'n1', adapter_number: 0, port_number: 0 }, { node_id: 'n2', adapter_number: 0, port_number: 3 }] };
    assert.deepEqual(d.describe(received('link.created', link)), { name: 'PC1:0/0-SW1:0/3', change: '' });
    assert.equal(d.describe(received('link.updated', { ...link, capturing: true })).change, 'capturing false→true');
    assert.deepEqual(d.describe(received('log.error', { message: 'VPCS has stopped' })), { change: 'VPCS has stopped' });
    assert.equal(d.describe(received('ping', { cpu_usage_percent: 1.5, memory_usage_percent: 40 })).change, 'cpu 1.5% memory 40%');
    assert.equal(d.describe(received('node.deleted', pc)).name, 'PC1');
    assert.equal(d.describe(received('node.updated', { ...pc, status: 'stopped' })).change, 'status stopped', 'forgotten once deleted');
  });

  it('changes: top-level fields, long values cut, usage figures left out, at most four', () => {
    assert.equal(changes({ a: 1, cpu_usage_percent: 3 }, { a: 2, cpu_usage_percent: 9 }), 'a 1→2');
    assert.equal(changes({ f: {} }, { f: { delay: [10] } }), 'f {}→{"delay":[10]}');
    assert.equal(changes({ t: 'x' }, { t: 'y'.repeat(100) }).length < 60, true);
    assert.equal(changes({}, { a: 1, b: 2, c: 3, d: 4, e: 5 }), 'a -→1 b -→2 c -→3 d -→4 (+1 more)');
    assert.equal(changes({ command_line: 'vpcs -p 1', status: 'started' }, { command_line: '', status: 'stopped' }), 'status started→stopped command_line vpcs -p 1→', 'status first');
  });
});
