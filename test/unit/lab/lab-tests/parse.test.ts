// The tests: list of a lab file: what a good list becomes, and where a bad one is wrong
// (FILE:LINE:COL, exit 2) before anything is sent to a server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT_USAGE } from '../../../../src/client/errors.js';
import { LabFileError } from '../../../../src/lab/locate.js';
import { parseLab } from '../../../../src/lab/parse.js';

const LAB = `name: t
nodes:
  R1: {type: docker, image: frr}
  H1: {type: vpcs, ip: 198.18.1.10/24}
  H2: {type: vpcs, ip: 198.18.2.10/24}
links:
  - [R1:eth0, H1:e0]
tests:
  - name: neighbours
    exec: {node: R1, command: "vtysh -c 'show ip ospf neighbor json'"}
    json: {path: neighbors, min: 2}
    exit: 0
    retry: 30s
  - name: route
    exec: {node: R1, command: ip route}
    contains: [198.18.1.0/24, dev]
    not_contains: unreachable
    regex: 'via \\S+'
    level: warning
  - name: h1 to h2
    ping: H1:H2
    wait: 1m30s
    stop_on_error: true
  - name: to an address
    ping: H1:198.18.2.10
  - name: everyone
    ping: all
  - name: both ping R1's side
    nodes: [H1, H2]
    ping: 198.18.1.1
  - name: console
    console: {node: H1, send: ping 198.18.2.10 -c 1, expect: ttl=}
  - name: shows
    nodes: [H1, H2]
    console: {send: show ip}
    json: {path: 'a["1.2.3.4"][0]', equals: {state: Full}}
`;

/** lab.yml:LINE:COL of the first `needle` in `text`. */
function where(text: string, needle: string): string {
  const offset = text.indexOf(needle);
  assert.ok(offset >= 0, needle);
  const before = text.slice(0, offset).split('\n');
  return `lab.yml:${before.length}:${before.at(-1)!.length + 1}`;
}

function refused(from: string, to: string, at: string, message: RegExp): void {
  assert.ok(LAB.includes(from), from);
  const text = LAB.replace(from, to);
  assert.throws(() => parseLab(text, 'lab.yml'), (err: unknown) => {
    assert.ok(err instanceof LabFileError, String(err));
    assert.equal(err.exitCode, EXIT_USAGE);
    assert.ok(err.message.startsWith(`${where(text, at)}: `), `${err.message} at ${at} (${where(text, at)})`);
    assert.match(err.message, message);
    return true;
  });
}

describe('lab file tests:', () => {
  it('reads every kind of test in file order, with its expectations and timing', () => {
    const tests = parseLab(LAB, 'lab.yml').tests;
    assert.deepEqual(tests.map((t) => t.name), ['neighbours', 'route', 'h1 to h2', 'to an address', 'everyone', "both ping R1's side", 'console', 'shows']);
    const [neighbours, route, ping, address, all, both, console, shows] = tests;
    assert.deepEqual(neighbours.probe, { kind: 'exec', command: "vtysh -c 'show ip ospf neighbor json'" });
    assert.deepEqual(neighbours.nodes, ['R1']);
    assert.equal(neighbours.retryMs, 30_000);
    assert.equal(neighbours.expect.exit, 0);
    assert.deepEqual(neighbours.expect.json, { path: 'neighbors', min: 2 });
    assert.deepEqual(route.expect.contains, ['198.18.1.0/24', 'dev']);
    assert.deepEqual(route.expect.notContains, ['unreachable']);
    assert.equal(route.expect.regex?.source, 'via \\S+');
    assert.equal(route.level, 'warning');
    assert.equal(neighbours.level, 'error');
    assert.deepEqual([ping.probe, ping.nodes, ping.waitMs, ping.stopOnError], [{ kind: 'ping', target: 'H2' }, ['H1'], 90_000, true]);
    assert.deepEqual([address.probe, address.nodes], [{ kind: 'ping', target: '198.18.2.10' }, ['H1']]);
    assert.deepEqual([all.probe, all.nodes], [{ kind: 'ping-all' }, []]);
    assert.deepEqual([both.probe, both.nodes], [{ kind: 'ping', target: '198.18.1.1' }, ['H1', 'H2']]);
    assert.deepEqual([console.probe, console.nodes, console.expect.contains], [{ kind: 'console', send: 'ping 198.18.2.10 -c 1' }, ['H1'], ['ttl=']]);
    assert.deepEqual(shows.nodes, ['H1', 'H2']);
    assert.equal(parseLab('name: x\n', 'lab.yml').tests.length, 0);
  });

  it('an unknown key in a test is refused at the key, naming the keys a test takes', () => {
    refused('    retry: 30s', '    retries: 30s', 'retries', /unknown key "retries" in tests\.0; expected one of: name, exec, ping, console, exit/);
    refused("exec: {node: R1, command: ip route}", "exec: {node: R1, command: ip route, shell: bash}", 'shell', /unknown key "shell" in tests\.1\.exec/);
  });

  it('a test naming a node the lab does not have is refused at that name', () => {
    refused('node: R1, command: ip route', 'node: R9, command: ip route', 'R9', /test "route" names node "R9", which the lab does not have; nodes: R1, H1, H2/);
    refused('ping: H1:H2', 'ping: H1:H7', 'H1:H7', /names node "H7"/);
    refused('nodes: [H1, H2]\n    ping', 'nodes: [H1, HX]\n    ping', 'HX', /names node "HX"/);
    refused('ping: H1:198.18.2.10', 'ping: H1:R1', 'H1:R1', /ping target R1 has no ip:/);
  });

  it('a bad regex, duration or json path is refused at its value', () => {
    refused("regex: 'via \\S+'", "regex: 'via (\\S+'", "'via (", /bad regex "via \(\\\\S\+": .*Unterminated group/);
    refused('retry: 30s', 'retry: 30 seconds', '30 seconds', /bad duration "30 seconds" for retry: expected e\.g\. 30s, 500ms, 2m/);
    refused('wait: 1m30s', 'wait: soon', 'soon', /bad duration "soon" for wait/);
    refused('path: neighbors', 'path: "neighbors[x"', '"neighbors[x"', /bad json path/);
  });

  it('a test with nothing or two things to run, or expectations a ping cannot meet, is refused', () => {
    refused('    ping: all\n', '', 'name: everyone', /test "everyone" needs one of exec:, ping: or console:/);
    refused('    ping: all\n', '    ping: all\n    exec: {node: R1, command: x}\n', 'ping: all', /test "everyone" has both exec: and ping:; give one/);
    refused('    ping: H1:H2\n', '    ping: H1:H2\n    contains: x\n', 'contains: x', /contains: checks the output of exec: or console:/);
    refused('ping: H1:H2', 'ping: H1', 'H1\n', /bad ping "H1": expected FROM:TO/);
    refused('console: {send: show ip}', 'console: {node: H1, send: show ip}', 'node: H1, send: show ip', /give console\.node or nodes:, not both/);
    refused('json: {path: neighbors, min: 2}', 'json: {path: neighbors, min: 3, max: 2}', '2}', /max 2 is below min 3/);
    refused('  - name: route\n', '  - name: neighbours\n', 'neighbours\n    exec: {node: R1, command: ip', /test name "neighbours" is used twice/);
    refused("command: \"vtysh -c 'show ip ospf neighbor json'\"", "command: \"vtysh -c 'show\"", '"vtysh', /unterminated ' quote/);
  });
});
