import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkStartupScript, refusedScriptLine } from '../../../../src/daemon/kinds/vpcs/script-commands.js';
import { InvalidError } from '../../../../src/daemon/errors.js';

describe('VPCS startup script commands', () => {
  it('allows what startup scripts hold: names, addresses, DNS, DHCP, comments, tests', () => {
    const script = '# lab PC\nset pcname PC1\nip 10.0.0.1 10.0.0.254 24\nip dns 10.0.0.53\n\nip dhcp\ndhcp\nset echo on\necho ready\nping 10.0.0.2 -c 1\nsleep 1\nshow ip\n';
    assert.equal(refusedScriptLine(script), undefined);
    checkStartupScript(script);
  });

  it('refuses host commands, file reads and writes, relays, tunnel changes and dumps, naming the line', () => {
    for (const line of ['! touch /tmp/x', '!touch /tmp/x', '\t! id', 'load /etc/shadow', 'save /tmp/x', 'sa /tmp/x', 'SAVE x', 'relay add 1 2', 'rlogin 127.0.0.1 22',
      'set lport 1', 'set rport 2', 'set rhost 192.0.2.1', 'set dump file', 'set', 'quit']) {
      assert.equal(refusedScriptLine(`set pcname PC1\n${line}\nip 10.0.0.1/24\n`), line.trim(), line);
      assert.throws(() => checkStartupScript(`${line}\r\n`), (err: Error) => err instanceof InvalidError && err.message.includes(line.trim()), line);
    }
  });
});
