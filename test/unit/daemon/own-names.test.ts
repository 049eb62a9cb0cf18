import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalHostname, OwnNames, parseHost, parseOrigin, type OwnNamesOptions } from '../../../src/daemon/http/own-names.js';

const names = (opts: Partial<OwnNamesOptions> = {}) => new OwnNames({ scheme: 'http', bindHost: '127.0.0.1', port: () => 3080, allowedHosts: [], ...opts });
const origin = (text: string) => {
  const url = parseOrigin(text);
  assert.ok(url, `${text} parses as an origin`);
  return url;
};

describe('the daemon\'s own names', () => {
  it('a loopback bind answers to localhost, 127.0.0.1 and ::1, whatever the case or notation', () => {
    const own = names();
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '[::1]', '[0:0:0:0:0:0:0:1]', '127.1']) {
      assert.ok(own.hasHost(parseHost(host)!.hostname), host);
    }
    for (const host of ['evil.example', '127.0.0.2', 'localhost.evil.example', '127.0.0.1.nip.io', 'localhost.']) {
      assert.equal(own.hasHost(parseHost(host)!.hostname), false, host);
    }
  });

  it('a bind to one other address answers to that address only (plus allowed_hosts)', () => {
    const own = names({ bindHost: '198.18.0.1', allowedHosts: ['Lab.Example', '[fd00::1]'] });
    for (const host of ['198.18.0.1', 'lab.example', 'LAB.EXAMPLE:80', '[fd00::1]:3080', '[FD00:0::1]']) {
      assert.ok(own.hasHost(parseHost(host)!.hostname), host);
    }
    for (const host of ['localhost', '127.0.0.1', '198.18.0.2', 'example']) assert.equal(own.hasHost(parseHost(host)!.hostname), false, host);
  });

  it('a bind to 127.0.0.5 does not answer to the other loopback names (something else may listen there)', () => {
    const own = names({ bindHost: '127.0.0.5' });
    assert.ok(own.hasHost('127.0.0.5'));
    assert.equal(own.hasHost('localhost'), false);
  });

  it('a wildcard bind answers to localhost, the wildcard and every address the machine has at the time of the request', () => {
    let addresses = ['127.0.0.1', '198.18.0.7', 'fe80::1'];
    for (const bindHost of ['0.0.0.0', '::']) {
      const own = names({ bindHost, interfaceAddresses: () => addresses });
      assert.ok(own.hasHost('localhost'));
      assert.ok(own.hasHost(parseHost(bindHost === '::' ? '[::]' : bindHost)!.hostname), 'the wildcard itself (the pid file\'s URL)');
      assert.ok(own.hasHost('198.18.0.7'));
      assert.ok(own.hasHost(parseHost('[FE80::1]:3080')!.hostname));
      assert.equal(own.hasHost('evil.example'), false);
      assert.equal(own.hasHost('198.18.0.8'), false);
    }
    const own = names({ bindHost: '0.0.0.0', interfaceAddresses: () => addresses });
    addresses = ['198.18.0.8'];
    assert.ok(own.hasHost('198.18.0.8'), 'an address the machine got later');
    assert.equal(own.hasHost('198.18.0.7'), false, 'an address the machine gave up');
  });

  it('own origins: the scheme, a name and the port the daemon really listens on', () => {
    let port = 0;
    const own = names({ port: () => port, allowedHosts: ['lab.example'] });
    port = 41234;
    for (const o of ['http://127.0.0.1:41234', 'http://localhost:41234', 'http://[::1]:41234', 'http://lab.example:41234', 'HTTP://LOCALHOST:41234']) {
      assert.ok(own.hasOrigin(origin(o)), o);
    }
    for (const o of ['http://127.0.0.1:41235', 'https://127.0.0.1:41234', 'http://127.0.0.2:41234', 'http://evil.example:41234', 'http://127.0.0.1']) {
      assert.equal(own.hasOrigin(origin(o)), false, o);
    }
    assert.ok(names({ scheme: 'https', port: () => 443 }).hasOrigin(origin('https://localhost')), 'the default port is left out of an origin');
    assert.equal(names({ scheme: 'https', port: () => 443 }).hasOrigin(origin('http://localhost:443')), false);
  });
});

describe('Host and Origin parsing', () => {
  it('a Host header is a name or an address and an optional port, nothing else', () => {
    assert.deepEqual(parseHost('Example.COM:8080'), { hostname: 'example.com', port: '8080' });
    assert.deepEqual(parseHost('[::1]'), { hostname: '::1', port: '' });
    for (const bad of ['::1', 'evil.example@127.0.0.1', '127.0.0.1/x', '127.0.0.1:99999', '127.0.0.1:', 'a b', '', '[::1', '127.0.0.1:80:80', '[::1%25eth0]']) {
      assert.equal(parseHost(bad), undefined, bad);
    }
  });

  it('a host name holds no port: canonicalHostname refuses name:port', () => {
    assert.equal(canonicalHostname('a.example:8080'), undefined);
    assert.equal(canonicalHostname('LOCALHOST'), 'localhost');
    assert.equal(canonicalHostname('[0::1]'), '::1');
    assert.equal(canonicalHostname('0::1'), '::1');
  });

  it('an origin is scheme://host[:port]; null, paths, users, other schemes are not', () => {
    assert.equal(origin('http://127.0.0.2:8080').origin, 'http://127.0.0.2:8080');
    assert.equal(origin('http://Example.com:80/').origin, 'http://example.com');
    for (const bad of ['null', '*', 'file:///etc/passwd', 'http://a.example/path', 'http://u:p@a.example', 'http://a.example?x', 'http://a.example#x', 'chrome-extension://abc', 'example.com', '']) {
      assert.equal(parseOrigin(bad), undefined, bad);
    }
  });
});
