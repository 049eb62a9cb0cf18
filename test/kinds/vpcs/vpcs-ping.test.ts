import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectVpcsConsole, ping, setIp, type VpcsConsole } from '../../../src/client/vpcs-console.js';
import { VpcsProcess } from '../../../src/daemon/kinds/vpcs/vpcs-process.js';
import { PidJanitor, freeTcpPorts, freeUdpPorts, tempDir } from './vpcs-helpers.js';

describe('two VPCS wired back to back over UDP on 127.0.0.1', () => {
  const janitor = new PidJanitor();
  const dir = tempDir();
  let a: VpcsProcess;
  let b: VpcsProcess;
  let consoleA: VpcsConsole;
  let consoleB: VpcsConsole;

  before(async () => {
    const [[udpA, udpB], [conA, conB]] = [await freeUdpPorts(2), await freeTcpPorts(2)];
    a = new VpcsProcess({ nodeDir: join(dir.path, 'a'), consolePort: conA, localUdpPort: udpA, remoteUdpPort: udpB, macByte: 1 });
    b = new VpcsProcess({ nodeDir: join(dir.path, 'b'), consolePort: conB, localUdpPort: udpB, remoteUdpPort: udpA, macByte: 2 });
    await Promise.all([a.start(), b.start()]);
    janitor.track(a.pid);
    janitor.track(b.pid);
    [consoleA, consoleB] = await Promise.all([connectVpcsConsole('127.0.0.1', conA), connectVpcsConsole('127.0.0.1', conB)]);
  });

  after(async () => {
    consoleA?.close();
    consoleB?.close();
    await Promise.allSettled([a?.stop(), b?.stop()]);
    janitor.killAll();
    dir.cleanup();
  });

  test('the console shows the default prompt and runs a command', async () => {
    assert.equal(consoleA.name, 'VPCS');
    assert.equal(await consoleA.run('echo hello there'), 'hello there');
  });

  test('setIp configures the address and gateway VPCS reports', async () => {
    assert.deepEqual(await setIp(consoleA, '10.0.0.1/24'), { ip: '10.0.0.1', mask: '255.255.255.0', gateway: undefined });
    assert.deepEqual(await setIp(consoleB, '10.0.0.2/24', '10.0.0.254'), {
      ip: '10.0.0.2', mask: '255.255.255.0', gateway: '10.0.0.254',
    });
    const show = await consoleB.run('show ip');
    assert.match(show, /^IP\/MASK\s+: 10\.0\.0\.2\/24$/m);
    assert.match(show, /^GATEWAY\s+: 10\.0\.0\.254$/m);
    assert.match(show, /^MAC\s+: 00:50:79:66:68:02$/m);
  });

  test('setIp rejects what VPCS refuses', async () => {
    await assert.rejects(setIp(consoleA, '10.0.0.300/24'), /VPCS refused "ip 10\.0\.0\.300\/24"/);
  });

  test('each pings the other: every reply received', async () => {
    const fromA = await ping(consoleA, '10.0.0.2', 4, { intervalMs: 100 });
    assert.equal(fromA.sent, 4);
    assert.equal(fromA.received, 4);
    assert.equal(fromA.rttsMs.length, 4);
    assert.ok(fromA.rttsMs.every((ms) => ms >= 0), `RTTs ${fromA.rttsMs}`);

    const fromB = await ping(consoleB, '10.0.0.1', 3, { intervalMs: 100 });
    assert.deepEqual([fromB.sent, fromB.received], [3, 3]);
  });

  test('an address nobody answers ARP for is reported unreachable', async () => {
    const result = await ping(consoleA, '10.0.0.77', 1, { waitMs: 200 });
    assert.equal(result.received, 0);
    assert.match(result.error ?? '', /host \(10\.0\.0\.77\) not reachable/);
  });

  test('the prompt follows a renamed VPC', async () => {
    await consoleA.run('set pcname alpha');
    assert.equal(consoleA.name, 'alpha');
    assert.equal(await consoleA.run('echo still-in-sync'), 'still-in-sync');
  });

  test('a second console session resynchronises after the first one left output behind', async () => {
    const port = a.options.consolePort;
    consoleA.close();
    consoleA = await connectVpcsConsole('127.0.0.1', port);
    assert.equal(consoleA.name, 'alpha');
    const result = await ping(consoleA, '10.0.0.2', 1);
    assert.deepEqual([result.sent, result.received], [1, 1]);
  });

  test('a command that outlives its timeout is interrupted and the console stays usable', async () => {
    await assert.rejects(consoleA.run('ping 10.0.0.2 -t', { timeoutMs: 500 }), /gave no prompt within 500 ms/);
    assert.equal(await consoleA.run('echo after-timeout'), 'after-timeout');
  });
});
