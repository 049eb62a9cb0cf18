import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addDaemonFlags } from '../../../src/commands/daemon/flags.js';
import { childArgs } from '../../../src/commands/daemon/start.js';

describe('daemon start: the detached child\'s arguments', () => {
  it('forward every daemon option the user gave (paths made absolute), with the port and log file fixed', () => {
    const options = addDaemonFlags(new Command()).options.filter((o) => o.long !== '--port');
    const argv = options.flatMap((o) => (o.required || o.optional ? [o.long!, o.argChoices?.[1] ?? `value-of-${o.long!.slice(2)}`] : [o.long!]));
    const parsed = addDaemonFlags(new Command()).exitOverride().parse(argv, { from: 'user' }).opts();
    const { corsOrigin, allowedHost, ...rest } = parsed;
    const args = childArgs({ ...rest, corsOrigins: corsOrigin, allowedHosts: allowedHost, debug: true }, 4567, 'run.log');
    assert.deepEqual(args.slice(0, 6), ['daemon', 'run', '--port', '4567', '--log-file', resolve('run.log')]);
    for (const o of options) {
      if (o.long === '--log-file') continue;
      const at = args.indexOf(o.long!);
      assert.ok(at > 5, `${o.long} reaches the child`);
      if (!(o.required || o.optional)) continue;
      const given = argv[argv.indexOf(o.long!) + 1];
      assert.ok(args[at + 1] === given || args[at + 1] === resolve(given), `${o.long} keeps its value: ${args[at + 1]}`);
    }
    assert.equal(args.at(-1), '--debug');
    assert.equal(args[args.indexOf('--projects-dir') + 1], resolve('value-of-projects-dir'), 'a path is absolute');
  });

  it('leave out what the user did not give', () => {
    assert.deepEqual(childArgs({}, 0, '/tmp/x.log'), ['daemon', 'run', '--port', '0', '--log-file', '/tmp/x.log']);
  });
});
