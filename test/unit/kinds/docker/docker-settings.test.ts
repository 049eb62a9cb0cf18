import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidError } from '../../../../src/daemon/errors.js';
import { STRICT_HOST_POLICY } from '../../../../src/daemon/host-policy.js';
import { DOCKER_KIND } from '../../../../src/daemon/kinds/docker/index.js';
import { containerCommand, hostnameOf } from '../../../../src/daemon/kinds/docker/container-spec.js';
import { applySettings, checkImageName, defaultSettings, parseEnvironment, parseExtraHosts, splitCommand, volumeMounts, volumePath } from '../../../../src/daemon/kinds/docker/docker-settings.js';
import { TelnetInput } from '../../../../src/daemon/kinds/docker/telnet-server.js';

describe('docker settings: what reaches Docker', () => {
  it('splits start_command as a shell splits words, with no expansion', () => {
    assert.deepEqual(splitCommand(`sh -c "echo \\"hi\\" \\$HOME; exit 3"`), ['sh', '-c', 'echo "hi" $HOME; exit 3']);
    assert.deepEqual(splitCommand(`a 'b c' d\\ e "" ''`), ['a', 'b c', 'd e', '', '']);
    assert.deepEqual(splitCommand('  /usr/lib/frr/frrinit.sh   start '), ['/usr/lib/frr/frrinit.sh', 'start']);
    assert.deepEqual(splitCommand('echo $(id) `id` *'), ['echo', '$(id)', '`id`', '*']);
    assert.throws(() => splitCommand(`sh -c 'unterminated`), /unterminated ' quote/);
    assert.throws(() => splitCommand('trailing\\'), InvalidError);
  });

  it('the command is start_command, else the image\'s Cmd, after the image\'s Entrypoint; /bin/sh when both are empty', () => {
    const image = (Entrypoint: string[] | null, Cmd: string[] | null) => ({ Config: { Entrypoint, Cmd } }) as never;
    const s = defaultSettings('x');
    assert.deepEqual(containerCommand(s, image(['/init'], ['--flag'])), ['/init', '--flag']);
    assert.deepEqual(containerCommand({ ...s, start_command: 'sleep 5' }, image(['/init'], ['--flag'])), ['/init', 'sleep', '5']);
    assert.deepEqual(containerCommand(s, image(null, null)), ['/bin/sh']);
  });

  it('environment: KEY=VALUE lines with plain keys; extra_hosts: host:address lines', () => {
    assert.deepEqual(parseEnvironment('A=1\n\nB=x=y\r\nC\n'), ['A=1', 'B=x=y', 'C=']);
    for (const bad of ['1A=x', 'A B=1', '=x', '-e=1']) assert.throws(() => parseEnvironment(bad), /not a valid variable name/, bad);
    assert.deepEqual(parseExtraHosts('gw:198.18.0.1\n r2 : 2001:db8::2 \n'), ['gw:198.18.0.1', 'r2:2001:db8::2']);
    for (const bad of ['gw', 'gw:', ':1.2.3.4', 'gw:300.1.1.1', 'a b:1.2.3.4', 'gw:1.2.3.4 --x']) assert.throws(() => parseExtraHosts(bad), /extra_hosts/, bad);
  });

  it('volumes are clean absolute container paths; image names are never options or paths', () => {
    assert.equal(volumePath('/etc/frr/'), '/etc/frr');
    assert.equal(volumePath('//etc/./frr'), '/etc/frr');
    for (const bad of ['/', 'etc/frr', '/etc/../..', '/a/$(x)', '/a b', '/a\0b']) assert.throws(() => volumePath(bad), /extra_volumes/, JSON.stringify(bad));
    for (const good of ['frrouting/frr:v8.4.0', 'alpine', 'localhost:5000/a/b:1', 'registry.example.com/x/y@sha256:' + 'a'.repeat(64), 'emuctl-test/host:d9ef77683cfa']) assert.equal(checkImageName(good), good);
    for (const bad of ['--privileged', 'UPPER/case', '/abs/path', '../x', 'a b', 'x:tag with space', '']) assert.throws(() => checkImageName(bad), /not a valid Docker image name/, bad);
    assert.throws(() => applySettings(defaultSettings('alpine'), { cap_add: ['NET_ADMIN'], environment: 'X Y=1' }), InvalidError);
  });

  it('volumes: each path once, none inside another (GNS3 keeps the outer one)', () => {
    assert.deepEqual(volumeMounts(['/etc/frr', '/etc', '/data/', '/data', '/etcx', '/etc/frr/x']), ['/etc', '/data', '/etcx']);
    assert.deepEqual(volumeMounts([]), []);
  });

  it('host names Docker takes, from any node name', () => {
    assert.equal(hostnameOf('R1'), 'R1');
    assert.equal(hostnameOf('core router #1'), 'core-router--1');
    assert.equal(hostnameOf('***'), 'docker');
    assert.equal(hostnameOf('x'.repeat(100)).length, 63);
  });
});

describe('docker kind: the controller checks properties bound for a remote compute', () => {
  it('refuses values of the wrong type or that would reach Docker unchecked with 400, never a TypeError', () => {
    const check = (p: Record<string, unknown>) => DOCKER_KIND.controller.checkProperties!(p, STRICT_HOST_POLICY);
    assert.doesNotThrow(() => check({ image: 'frrouting/frr:v8.4.0', environment: 'A=1', extra_volumes: ['/etc/frr'], console_auto_start: true }));
    for (const bad of [{ environment: 5 }, { extra_volumes: '/etc' }, { start_command: ['sh'] }, { image: '--privileged' }, { extra_hosts: 'x' }, { cap_add: ['SYS_RAWIO'] }, { cap_add: ['SYS_ADMIN'] }, { privileged: true }, { image: 'localhost:24501/x' }]) {
      assert.throws(() => check(bad), InvalidError, JSON.stringify(bad));
    }
  });
});

describe('docker console: telnet input', () => {
  it('drops the client\'s negotiation and subnegotiation, keeps a literal 0xff, and makes CR NUL and CR LF one Enter', () => {
    const input = new TelnetInput();
    const typed = input.feed(Buffer.from([0xff, 0xfd, 0x01, 0x6c, 0x73, 0xff, 0xfa, 0x1f, 0x00, 0x50, 0xff, 0xf0, 0x0d, 0x00, 0xff, 0xff, 0x0d, 0x0a]));
    assert.deepEqual([...typed], [0x6c, 0x73, 0x0d, 0xff, 0x0d]);
    // A command split across reads.
    assert.deepEqual([...input.feed(Buffer.from([0xff]))], []);
    assert.deepEqual([...input.feed(Buffer.from([0xfb, 0x18, 0x61]))], [0x61]);
  });
});
