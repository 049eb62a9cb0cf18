// kinds/docker/containment.ts: what a docker node may ask for, and the read-back of what Docker made.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type Docker from 'dockerode';
import { ConflictError, InvalidError } from '../../../../src/daemon/errors.js';
import { STRICT_HOST_POLICY } from '../../../../src/daemon/host-policy.js';
import {
  ALL_CAPABILITIES, boundingSet, checkContainment, checkContainmentAtStart, checkHardening, checkProcessStatus, DEFAULT_CAPABILITIES, hardenedHostConfig,
  checkRegistryAddresses, isLocalAddress, refusedRegistry, registryOf, restoredCapabilities, SAFE_CAPABILITIES, violationOf,
} from '../../../../src/daemon/kinds/docker/containment.js';

const node = (o: Partial<{ image: string; cap_add: string[]; privileged: boolean }> = {}) => ({ image: 'frrouting/frr:v8.4.0', cap_add: [...DEFAULT_CAPABILITIES], privileged: false, ...o });
const UNSAFE = { dockerUnsafeCaps: true, dockerRegistries: [] };

describe('docker containment: capabilities and privileged', () => {
  it('the default is NET_ADMIN and NET_RAW, within the allow-list', () => {
    assert.deepEqual(DEFAULT_CAPABILITIES, ['NET_ADMIN', 'NET_RAW']);
    assert.equal(violationOf(node(), STRICT_HOST_POLICY), undefined);
  });

  it('refuses privileged and every capability outside the allow-list (400 naming the field), and allows them with docker_unsafe_caps', () => {
    assert.throws(() => checkContainment(node({ privileged: true }), STRICT_HOST_POLICY), (e: Error) => e instanceof InvalidError && /^privileged: .*docker_unsafe_caps/.test(e.message));
    const named = ['SYS_ADMIN', 'SYS_MODULE', 'SYS_PTRACE', 'SYS_RAWIO', 'DAC_READ_SEARCH', 'BPF', 'PERFMON', 'SYS_TIME', 'SYS_NICE', 'IPC_LOCK', 'SYS_BOOT', 'MAC_ADMIN', 'SYSLOG', 'LINUX_IMMUTABLE', 'CHECKPOINT_RESTORE'];
    const refused = ALL_CAPABILITIES.filter((c) => !SAFE_CAPABILITIES.includes(c));
    for (const cap of named) assert.ok(refused.includes(cap as never), cap);
    for (const cap of refused) {
      assert.throws(() => checkContainment(node({ cap_add: ['NET_ADMIN', cap] }), STRICT_HOST_POLICY), (e: Error) => e instanceof InvalidError && e.message.startsWith(`cap_add: ${cap} `), cap);
      assert.doesNotThrow(() => checkContainment(node({ cap_add: [cap], privileged: true }), UNSAFE), cap);
    }
    for (const cap of SAFE_CAPABILITIES) assert.doesNotThrow(() => checkContainment(node({ cap_add: [cap] }), STRICT_HOST_POLICY), cap);
  });

  it('a restored node with exactly the former default (NET_ADMIN, NET_RAW, SYS_ADMIN) gets today\'s; any other set is kept', () => {
    assert.deepEqual(restoredCapabilities(['SYS_ADMIN', 'NET_RAW', 'NET_ADMIN'], STRICT_HOST_POLICY), ['NET_ADMIN', 'NET_RAW']);
    assert.deepEqual(restoredCapabilities(['NET_ADMIN', 'SYS_ADMIN'], STRICT_HOST_POLICY), ['NET_ADMIN', 'SYS_ADMIN']);
    assert.deepEqual(restoredCapabilities(['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN', 'SYS_PTRACE'], STRICT_HOST_POLICY), ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN', 'SYS_PTRACE']);
    assert.deepEqual(restoredCapabilities(['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN'], UNSAFE), ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN'], 'the operator allows it: kept');
  });

  it('a restored node out of bounds is a 409 at start, naming the property', () => {
    assert.throws(() => checkContainmentAtStart('R1', node({ cap_add: ['SYS_ADMIN'] }), STRICT_HOST_POLICY), (e: Error) => e instanceof ConflictError && /R1 cannot start: cap_add: SYS_ADMIN/.test(e.message));
  });
});

describe('docker containment: registries', () => {
  it('finds the registry part as Docker does', () => {
    assert.equal(registryOf('frr'), undefined);
    assert.equal(registryOf('frrouting/frr:v8.4.0'), undefined);
    assert.equal(registryOf('ghcr.io/x/y'), 'ghcr.io');
    assert.equal(registryOf('localhost/x'), 'localhost');
    assert.equal(registryOf('Reg.Example:5000/x'), 'reg.example:5000');
  });

  it('refuses localhost, IP literals in any inet_aton form, and any port; public names pass; a listed one passes', () => {
    for (const image of ['localhost:24501/x', 'localhost/x', 'a.localhost/x', '127.0.0.1/x', '127.1/x', '0x7f.1/x', '10.0.0.1:5000/x', '2130706433.0/x', 'registry.example.com:443/x', 'registry.example.com:5000/team/frr:8']) {
      assert.ok(refusedRegistry(image, []), image);
      assert.throws(() => checkContainment(node({ image }), STRICT_HOST_POLICY), (e: Error) => e instanceof InvalidError && /^image: .*docker_registries/.test(e.message), image);
    }
    for (const image of ['frr', 'frrouting/frr:v8.4.0', 'docker.io/library/busybox:1.36', 'ghcr.io/a/b@sha256:' + 'a'.repeat(64), 'quay.io/frrouting/frr:9.1.0']) assert.equal(refusedRegistry(image, []), undefined, image);
    assert.equal(refusedRegistry('localhost:24501/x', ['localhost:24501']), undefined);
    assert.equal(refusedRegistry('localhost:24502/x', ['localhost:24501']), 'localhost:24502');
  });
});

describe('docker containment: what a registry name resolves to', () => {
  it('knows local and private addresses, IPv4-mapped ones too', () => {
    for (const a of ['127.0.0.1', '127.5.6.7', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '198.18.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) assert.equal(isLocalAddress(a), true, a);
    for (const a of ['8.8.8.8', '140.82.112.3', '2606:4700::1111', '::ffff:8.8.8.8']) assert.equal(isLocalAddress(a), false, a);
  });

  it('a registry name resolving to this host or a private network is a 409 before Docker pulls; public ones, listed ones and names without a registry pass', async () => {
    const dns: Record<string, string[]> = { 'evil.example': ['93.184.216.34', '127.0.0.1'], 'ghcr.io': ['140.82.112.3'], 'lab.example': ['10.0.0.5'] };
    const lookupAll = async (host: string) => {
      if (!dns[host]) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return dns[host].map((address) => ({ address }));
    };
    await assert.rejects(checkRegistryAddresses('evil.example/x', STRICT_HOST_POLICY, lookupAll), (e: Error) => e instanceof ConflictError && /evil\.example resolves to 127\.0\.0\.1.*docker_registries/.test(e.message));
    await assert.rejects(checkRegistryAddresses('lab.example/x', STRICT_HOST_POLICY, lookupAll), /10\.0\.0\.5/);
    await checkRegistryAddresses('lab.example/x', { dockerUnsafeCaps: false, dockerRegistries: ['lab.example'] }, lookupAll);
    await checkRegistryAddresses('ghcr.io/a/b', STRICT_HOST_POLICY, lookupAll);
    await checkRegistryAddresses('frrouting/frr', STRICT_HOST_POLICY, async () => assert.fail('no lookup for docker.io'));
    await checkRegistryAddresses('unknown.example/x', STRICT_HOST_POLICY, lookupAll);
  });
});

describe('docker containment: hardening and its read-back', () => {
  const inspect = (host: Record<string, unknown>, mounts: { Type: string }[] = []) => ({ HostConfig: { ...hardenedHostConfig(node()), ...host }, Mounts: mounts }) as unknown as Docker.ContainerInspectInfo;
  const ENGINE = ['name=seccomp,profile=default'];

  it('asks for no-new-privileges, a private cgroup namespace, no network, devices or binds', () => {
    const h = hardenedHostConfig(node()) as Record<string, unknown>;
    assert.deepEqual(h.SecurityOpt, ['no-new-privileges:true']);
    assert.equal(h.CgroupnsMode, 'private');
    assert.equal(h.NetworkMode, 'none');
    assert.deepEqual(h.Devices, []);
    assert.deepEqual(h.Binds, []);
    assert.deepEqual(h.CapAdd, ['NET_ADMIN', 'NET_RAW']);
  });

  it('passes what Docker made as asked; a field it ignored or changed is a 409 naming it', () => {
    assert.doesNotThrow(() => checkHardening('R1', node(), inspect({}, [{ Type: 'volume' }]), ENGINE));
    const cases: [Record<string, unknown>, RegExp, { Type: string }[]?, string[]?][] = [
      [{ CgroupnsMode: 'host' }, /cgroup namespace is host/],
      [{ CgroupnsMode: undefined }, /cgroup namespace is the host's/],
      [{ SecurityOpt: null }, /no-new-privileges is off/],
      [{ SecurityOpt: ['no-new-privileges:true', 'seccomp=unconfined'] }, /seccomp is unconfined/],
      [{ Privileged: true }, /Privileged is true/],
      [{ CapAdd: ['NET_ADMIN', 'SYS_ADMIN'] }, /CapAdd/],
      [{ PidMode: 'host' }, /PidMode is host/],
      [{ NetworkMode: 'host' }, /NetworkMode is host/],
      [{ IpcMode: 'host' }, /IpcMode is host/],
      [{ UsernsMode: 'host' }, /UsernsMode is host/],
      [{ Devices: [{ PathOnHost: '/dev/mem' }] }, /host devices/],
      [{ Binds: ['/:/host'] }, /host binds/],
      [{}, /mounts a host path/, [{ Type: 'bind' }]],
      [{}, /no seccomp profile/, [], ['name=apparmor']],
    ];
    for (const [host, message, mounts, engine] of cases) {
      assert.throws(() => checkHardening('R1', node(), inspect(host, mounts), engine ?? ENGINE), (e: Error) => e instanceof ConflictError && message.test(e.message), message.source);
    }
  });

  it('reads the kernel\'s view of the first process: seccomp on, no_new_privs, no capability beyond the bounding set', () => {
    const status = (over: Record<string, string>) => Object.entries({ Name: 'sh', NoNewPrivs: '1', Seccomp: '2', CapBnd: boundingSet(node()).toString(16).padStart(16, '0'), ...over }).map(([k, v]) => `${k}:\t${v}`).join('\n');
    assert.equal(boundingSet(node()).toString(16), 'a80435fb', 'Docker\'s default set plus NET_ADMIN (NET_RAW is a default)');
    assert.doesNotThrow(() => checkProcessStatus('R1', node(), status({})));
    assert.throws(() => checkProcessStatus('R1', node(), status({ Seccomp: '0' })), /Seccomp is 0/);
    assert.throws(() => checkProcessStatus('R1', node(), status({ NoNewPrivs: '0' })), /NoNewPrivs is 0/);
    assert.throws(() => checkProcessStatus('R1', node(), status({ CapBnd: 'a82435fb' })), /bounding set/, 'SYS_ADMIN (bit 21) present');
  });
});
