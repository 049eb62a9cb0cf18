// argv → options for image list/import and the docker properties of node create (pure functions,
// no server).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { UsageError } from '../../../src/cli/errors.js';
import { imageImportCommand } from '../../../src/commands/image/import.js';
import { imageListCommand } from '../../../src/commands/image/list.js';
import { dockerProperties } from '../../../src/commands/node/create.js';
import { parseWithSpy } from '../../cli/helpers/cli.js';

const isUsage = (err: unknown) => err instanceof CommanderError && err.exitCode !== 0;

describe('image verbs parse', () => {
  it('image list [-c C] [--kind qemu|docker]', async () => {
    assert.deepEqual((await parseWithSpy('image', imageListCommand, ['image', 'list'])).opts, { compute: undefined, kind: undefined });
    assert.deepEqual((await parseWithSpy('image', imageListCommand, ['image', 'ls', '-k', 'docker', '-c', 'remote'])).opts, { compute: 'remote', kind: 'docker' });
    await assert.rejects(parseWithSpy('image', imageListCommand, ['image', 'list', '--kind', 'iou']), isUsage);
  });

  it('image import FILE [-c C]', async () => {
    assert.deepEqual((await parseWithSpy('image', imageImportCommand, ['image', 'import', 'frr.tar', '-c', 'remote'])).opts, { file: 'frr.tar', compute: 'remote' });
    await assert.rejects(parseWithSpy('image', imageImportCommand, ['image', 'import']), isUsage);
  });
});

describe('node create --type docker', () => {
  it('image, adapters, start_command and the environment as GNS3 lines', () => {
    assert.deepEqual(dockerProperties({ name: 'R1', type: 'docker', image: 'frr:8', adapters: 3, startCommand: 'sh -c x', env: ['A=1', 'B=x y'] }),
      { image: 'frr:8', adapters: 3, start_command: 'sh -c x', environment: 'A=1\nB=x y' });
    assert.deepEqual(dockerProperties({ name: 'H1', type: 'docker', image: 'busybox' }), { image: 'busybox' });
  });

  it('no image, a bad --env, a QEMU option: usage errors naming what is wrong', () => {
    assert.throws(() => dockerProperties({ name: 'R1', type: 'docker' }), (e: unknown) => e instanceof UsageError && /needs --image/.test(e.message));
    assert.throws(() => dockerProperties({ name: 'R1', type: 'docker', image: 'x', env: ['1A=b'] }), /--env "1A=b": expected KEY=VALUE/);
    assert.throws(() => dockerProperties({ name: 'R1', type: 'docker', image: 'x', ram: 512, kernel: 'k' }), /--ram, --kernel are for --type qemu, not docker/);
  });
});
