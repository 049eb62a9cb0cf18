// `link stats` argv → options, with a spy run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkStatsCommand } from '../../../src/commands/link/stats.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const parse = async (...argv: string[]) => (await parseWithSpy('link', linkStatsCommand, ['link', 'stats', ...argv])).opts;

describe('link stats options', () => {
  it('all links once; one link; -p', async () => {
    assert.deepEqual(await parse(), { link: undefined, project: undefined, watch: undefined });
    assert.deepEqual(await parse('PC1:0/0-SW1:0/0', '-p', 'lab'), { link: 'PC1:0/0-SW1:0/0', project: 'lab', watch: undefined });
  });

  it('--watch alone is every second; --watch SECONDS and -w take a period, fractions too', async () => {
    assert.deepEqual(await parse('--watch'), { link: undefined, project: undefined, watch: 1 });
    assert.deepEqual(await parse('L1', '--watch', '5'), { link: 'L1', project: undefined, watch: 5 });
    assert.deepEqual(await parse('-w', '0.5', '-p', 'lab'), { link: undefined, project: 'lab', watch: 0.5 });
    const json = await parseWithSpy('link', linkStatsCommand, ['--json', 'link', 'stats', '-w']);
    assert.deepEqual([json.opts.watch, json.ctx.out.json], [1, true]);
  });

  it('a period that is not a positive number is refused', async () => {
    for (const bad of ['0', '-1', '1.2.3']) await assert.rejects(parse('--watch', bad), /expected a positive number of seconds/);
  });

  it('--watch LINK: what follows --watch is the link when it is not a number; with a link already given it is refused', async () => {
    assert.deepEqual(await parse('--watch', 'PC1:0/0-SW1:0/0'), { link: 'PC1:0/0-SW1:0/0', project: undefined, watch: 1 });
    assert.deepEqual(await parse('-w', 'L1', '-p', 'lab'), { link: 'L1', project: 'lab', watch: 1 });
    await assert.rejects(parse('L1', '--watch', 'L2'), /--watch takes a number of seconds, not 'L2'/);
  });
});
