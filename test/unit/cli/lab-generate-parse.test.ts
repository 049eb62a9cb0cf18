// argv → options for `lab generate KIND` and `image build`, with a spy in place of run().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { imageBuildCommand } from '../../../src/commands/image/build.js';
import { labGenerateCommand } from '../../../src/commands/lab/generate.js';
import { UsageError } from '../../../src/cli/errors.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;

describe('lab generate parses', () => {
  it('clos --spines N --leaves N [--hosts-per-leaf N] --routing bgp -o FILE', async () => {
    const { opts } = await parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'clos', '--spines', '2', '--leaves', '4', '--routing', 'bgp', '-o', 'f.yml']);
    assert.deepEqual(opts, { kind: 'clos', options: { spines: 2, leaves: 4, hostsPerLeaf: 1 }, routing: 'bgp', image: undefined, hostImage: undefined, output: 'f.yml' });
    await assert.rejects(parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'clos', '--spines', '2']), isUsage);
    await assert.rejects(parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'clos', '--spines', 'two', '--leaves', '2']), isUsage);
    await assert.rejects(parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'clos', '--spines', '2', '--leaves', '2', '--routing', 'isis']), isUsage);
  });

  it('ring, star and tree with their counts, images and ospf by default', async () => {
    assert.deepEqual((await parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'ring', '--routers', '5', '--image', 'my/frr:9', '--host-image', 'busybox'])).opts,
      { kind: 'ring', options: { routers: 5, hostsPerRouter: 0 }, routing: 'ospf', image: 'my/frr:9', hostImage: 'busybox', output: undefined });
    assert.deepEqual((await parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'star', '--routers', '4', '--hosts-per-router', '2'])).opts,
      { kind: 'star', options: { routers: 4, hostsPerRouter: 2 }, routing: 'ospf', image: undefined, hostImage: undefined, output: undefined });
    assert.deepEqual((await parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'tree', '--depth', '2', '--fanout', '3'])).opts,
      { kind: 'tree', options: { depth: 2, fanout: 3, hostsPerLeaf: 1 }, routing: 'ospf', image: undefined, hostImage: undefined, output: undefined });
    await assert.rejects(parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'tree', '--depth', '2']), isUsage);
    await assert.rejects(parseWithSpy('lab', labGenerateCommand, ['lab', 'generate', 'mesh', '--routers', '3']), isUsage);
  });
});

describe('image build parses', () => {
  it('names frr and/or host, --tag with one image, -c', async () => {
    assert.deepEqual((await parseWithSpy('image', imageBuildCommand, ['image', 'build', 'frr', 'host', 'frr'])).opts, { names: ['frr', 'host'], tag: undefined, compute: undefined });
    assert.deepEqual((await parseWithSpy('image', imageBuildCommand, ['image', 'build', 'host', '--tag', 'lab/host:1', '-c', 'far'])).opts, { names: ['host'], tag: 'lab/host:1', compute: 'far' });
    await assert.rejects(parseWithSpy('image', imageBuildCommand, ['image', 'build', 'vyos']), (e: Error) => e instanceof UsageError && /unknown image vyos: emuctl builds frr, host, ssh$/.test(e.message));
    await assert.rejects(parseWithSpy('image', imageBuildCommand, ['image', 'build', 'frr', 'host', '--tag', 'x']), UsageError);
    await assert.rejects(parseWithSpy('image', imageBuildCommand, ['image', 'build', 'frr', '--tag', 'Bad Tag']), UsageError);
    await assert.rejects(parseWithSpy('image', imageBuildCommand, ['image', 'build']), isUsage);
  });
});
