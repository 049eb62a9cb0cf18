// The management network bench's pure parts: options, ansible output, leftovers, per-node cost and tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ansiblePongs, clean, interfacesLeft, reachedAll, mgmtRules, parseRange, parseSizes, perNodeCost, reportTables, type LabRun } from '../../../../bench/docker/mgmt-report.js';

const none = { containers: 0, interfaces: 0, bridges: 0, rules: 0, dnsmasq: 0 };

function lab(over: Partial<LabRun>): LabRun {
  return { nodes: 20, mgmt: false, loadBefore: '1.00 1.00 1.00', upMs: 20_000, cgroupKb: [4096, 5120, 6144], rssKb: [8192, 8192, 9216], daemonMb: 100, loadUp: '2.00 2.00 2.00', downMs: 5_000, left: none, ...over };
}

describe('mgmt bench: options', () => {
  it('reads sizes and refuses what is not a size of 1…250', () => {
    assert.deepEqual(parseSizes('20,100'), [20, 100]);
    assert.deepEqual(parseSizes(' 5 '), [5]);
    for (const bad of ['', '0', '251', '20,x', '2.5']) assert.throws(() => parseSizes(bad), /--nodes/, bad);
  });

  it('reads a port range LOW-HIGH', () => {
    assert.deepEqual(parseRange('65000-65249', 'console-range'), [65000, 65249]);
    for (const bad of ['65249-65000', '0-10', '1-70000', '65000', 'a-b']) assert.throws(() => parseRange(bad, 'udp-range'), /--udp-range/, bad);
  });
});

describe('mgmt bench: what it reads', () => {
  it('counts the hosts that answered pong in ansible -o output, and only those', () => {
    const out = [
      'N2 | SUCCESS => {"ansible_facts": {"discovered_interpreter_python": "/usr/bin/python3"},"changed": false,"ping": "pong"}',
      'N1 | SUCCESS => {"changed": false, "ping": "pong"}',
      'N3 | UNREACHABLE! => {"changed": false,"msg": "Failed to connect to the host via ssh: ssh: connect to host 198.19.0.4 port 22: Connection refused","unreachable": true}',
      'N4 | FAILED! => {"msg": "ping: pong expected"}',
    ].join('\n');
    assert.deepEqual(ansiblePongs(out), ['N1', 'N2']);
    assert.deepEqual(ansiblePongs(''), []);
  });

  it("keeps the iptables-save lines of the project's management chain and its jump", () => {
    const save = [
      '*filter',
      ':EMUCTL-MGMT-0a1b2c3d - [0:0]',
      ':EMUCTL-MGMT-99999999 - [0:0]',
      '-A FORWARD -m comment --comment "emuctl management network 0a1b2c3d" -j EMUCTL-MGMT-0a1b2c3d',
      '-A EMUCTL-MGMT-0a1b2c3d -i emum0a1b2c3d -o emum0a1b2c3d -j ACCEPT',
      '-A FORWARD -j DOCKER-USER',
      'COMMIT',
    ].join('\n');
    assert.equal(mgmtRules(save, '0A1B2C3D').length, 3);
    assert.deepEqual(mgmtRules(save, 'deadbeef'), []);
  });

  it("names the new interfaces that carry the project's or a node's tag, not the machine's others", () => {
    const before = ['lo', 'eth0', 'emuv11111111'];
    const after = ['lo', 'eth0', 'emuv11111111', 'emuv22222222', 'emum0a1b2c3d', 'vethabc', 'emd33333333e0'];
    assert.deepEqual(interfacesLeft(before, after, ['0a1b2c3d', '22222222', '11111111']), ['emum0a1b2c3d', 'emuv22222222']);
    assert.deepEqual(interfacesLeft(before, before, ['0a1b2c3d']), []);
  });
});

describe('mgmt bench: cost and report', () => {
  const base = lab({});
  const mgmt = lab({ mgmt: true, upMs: 30_000, cgroupKb: [5120, 6144, 7168], daemonMb: 110, sshAnswered: 20, sshFirstMs: 21_000, sshMedianMs: 25_000, sshAllMs: 31_000, ansiblePongs: 20, ansibleMs: 40_000, ansibleRunMs: 9_000, ansibleRuns: 1, cgroupAfterKb: 9216 });

  it('gives the per-node cost of mgmt against the baseline as ratio and difference', () => {
    const c = perNodeCost(base, mgmt);
    assert.equal(c.upMsPerNode.base, 1000);
    assert.equal(c.upMsPerNode.mgmt, 1500);
    assert.equal(c.upMsPerNode.ratio, 1.5);
    assert.equal(c.upMsPerNode.diff, 500);
    assert.equal(c.cgroupKb.base, 5120);
    assert.equal(c.cgroupKb.diff, 1024);
    assert.equal(c.rssKb.ratio, 1);
    assert.equal(c.daemonMbPerNode.diff, 0.5);
  });

  it('refuses to compare labs of different sizes or two of one kind', () => {
    assert.throws(() => perNodeCost(base, lab({ mgmt: true, nodes: 100 })));
    assert.throws(() => perNodeCost(base, base));
  });

  it('prints a reach row per size and the cost rows, with the 60 s Ansible verdict and what was left', () => {
    const slow = lab({ nodes: 100, mgmt: true, upMs: 100_000, ansiblePongs: 100, ansibleMs: 75_000, ansibleRunMs: 20_000, ansibleRuns: 2, sshAnswered: 100, sshAllMs: 70_000, left: { ...none, rules: 2 } });
    const table = reportTables([base, mgmt, lab({ nodes: 100 }), slow]);
    assert.match(table, /^\| 20 \| 1\.00 1\.00 1\.00 \| 30\.0 s \| 21\.0 s \| 25\.0 s \| 31\.0 s \| 40\.0 s \(1; 9\.0 s\) \| met \| 5\.0 s \| 0 \/ 0 \/ 0 \/ 0 \/ 0 \|/m);
    assert.match(table, /^\| 100 \| .* \| 75\.0 s \(2; 20\.0 s\) \| not met \| .* \| 0 \/ 0 \/ 0 \/ 2 \/ 0 \|/m);
    assert.match(table, /^\| 20 \| `lab up` time per node \| 1000 ms \| 1500 ms \| 1\.50× \| \+500 ms \|$/m);
    assert.match(table, /^\| 20 \| cgroup memory per container, .* \| 5\.0 MiB \| 6\.0 MiB \| 1\.20× \| \+1\.00 MiB \|$/m);
    assert.match(table, /^\| 20 \| daemon RSS with the lab up \(whole daemon\) \| 100\.0 MB \| 110\.0 MB \| 1\.10× \| \+512 KiB \|$/m);
    assert.match(table, /^\| 20 \| cgroup memory per container after the ssh and Ansible contacts \(median\) \| – \| 9\.0 MiB \|/m);
    assert.equal(clean(mgmt), true);
    assert.equal(clean(slow), false);
  });

  it('says how many nodes answered when not all did, and that such a lab did not reach every node', () => {
    const short = lab({ mgmt: true, sshAnswered: 14, sshFirstMs: 30_000, sshMedianMs: 60_000, sshAllMs: NaN, ansiblePongs: 17, ansibleMs: NaN, ansibleRunMs: 50_000, ansibleRuns: 3 });
    const table = reportTables([base, short]);
    assert.match(table, /^\| 20 \| .* \| 14 of 20 answered \| 17 of 20 at best \(3; 50\.0 s\) \| not met \|/m);
    assert.equal(reachedAll(short), false);
    assert.equal(reachedAll(mgmt), true);
    assert.equal(reachedAll(base), true);
  });
});
