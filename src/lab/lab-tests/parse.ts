// Reads a lab file's `tests:` (already checked against the schema) into LabTests, refusing what a
// schema cannot say: a test naming a node the file does not have, a bad regex or duration, a
// test with no or two things to run, expectations a probe cannot meet. Nothing here talks to a server.
import type { Locator, YamlPath } from '../locate.js';
import type { NodeSpec } from '../model.js';
import { parseDuration } from './duration.js';
import { pathSegments } from './expect.js';
import { splitShellWords } from '../../util/shell-words.js';
import type { Expectations, LabTest, Probe } from './model.js';

/** A test as the lab file holds it. */
export interface RawTest {
  name: string;
  exec?: { node?: string; command: string };
  ping?: string;
  console?: { node?: string; send: string; expect?: string };
  exit?: number;
  contains?: string | string[];
  not_contains?: string | string[];
  regex?: string;
  json?: { path: string; equals?: unknown; min?: number; max?: number };
  retry?: string | number;
  wait?: string | number;
  level?: 'error' | 'warning';
  stop_on_error?: boolean;
  nodes?: string[];
}

const IPV4 = /^(\d{1,3}\.){3}\d{1,3}$/;

/** The file's tests, in file order; a mistake is a LabFileError at its place. */
export function readTests(raw: readonly RawTest[], where: Locator, nodes: ReadonlyMap<string, NodeSpec>): LabTest[] {
  const names = new Map<string, number>();
  return raw.map((test, i) => {
    const path = ['tests', i];
    if (names.has(test.name)) throw where.error([...path, 'name'], `test name "${test.name}" is used twice (first at tests[${names.get(test.name)}])`);
    names.set(test.name, i);
    return new TestReader(test, path, where, nodes).read();
  });
}

class TestReader {
  constructor(private readonly raw: RawTest, private readonly path: YamlPath, private readonly where: Locator, private readonly nodes: ReadonlyMap<string, NodeSpec>) {}

  read(): LabTest {
    const { raw, path } = this;
    const given = (['exec', 'ping', 'console'] as const).filter((k) => raw[k] !== undefined);
    if (given.length !== 1) {
      throw given.length ? this.where.keyError(path, given[1], `test "${raw.name}" has both ${given[0]}: and ${given[1]}:; give one`)
        : this.where.keyError(path, 'name', `test "${raw.name}" needs one of exec:, ping: or console:`);
    }
    for (const [i, node] of (raw.nodes ?? []).entries()) this.checkNode(node, [...path, 'nodes', i]);
    const { probe, nodes } = this.probe(given[0]);
    const expect = this.expectations(probe);
    return {
      name: raw.name,
      pos: this.where.at(path),
      probe,
      nodes,
      expect,
      retryMs: this.duration('retry'),
      waitMs: this.duration('wait'),
      level: raw.level ?? 'error',
      stopOnError: raw.stop_on_error ?? false,
    };
  }

  private probe(kind: 'exec' | 'ping' | 'console'): { probe: Probe; nodes: string[] } {
    const { raw, path } = this;
    if (kind === 'ping') return this.ping(raw.ping!);
    const body = kind === 'exec' ? raw.exec! : raw.console!;
    if (body.node !== undefined && raw.nodes !== undefined) throw this.where.keyError([...path, kind], 'node', `test "${raw.name}": give ${kind}.node or nodes:, not both`);
    if (body.node === undefined && raw.nodes === undefined) throw this.where.keyError(path, kind, `test "${raw.name}": ${kind}: needs a node: (or the test a nodes: list)`);
    if (body.node !== undefined) this.checkNode(body.node, [...path, kind, 'node']);
    const nodes = body.node !== undefined ? [body.node] : raw.nodes!;
    if (kind === 'exec') {
      try {
        splitShellWords(raw.exec!.command);
      } catch (err) {
        throw this.where.error([...path, 'exec', 'command'], `bad command ${JSON.stringify(raw.exec!.command)}: ${(err as Error).message}`);
      }
      return { probe: { kind: 'exec', command: raw.exec!.command }, nodes };
    }
    return { probe: { kind: 'console', send: raw.console!.send }, nodes };
  }

  /** `A:B`, `A:ADDRESS`, `all`, or (with nodes:) a target only. */
  private ping(text: string): { probe: Probe; nodes: string[] } {
    const at = [...this.path, 'ping'];
    if (text === 'all') {
      if (this.raw.nodes !== undefined) throw this.where.keyError(this.path, 'nodes', 'ping: all pings every pair of hosts; it takes no nodes:');
      return { probe: { kind: 'ping-all' }, nodes: [] };
    }
    const colon = text.indexOf(':');
    if (this.raw.nodes !== undefined) {
      if (colon >= 0) throw this.where.error(at, `with nodes:, ping: names the target only (a node or an IPv4 address), not "${text}"`);
      this.checkTarget(text, at);
      return { probe: { kind: 'ping', target: text }, nodes: this.raw.nodes };
    }
    if (colon <= 0 || colon === text.length - 1) throw this.where.error(at, `bad ping "${text}": expected FROM:TO (H1:H2, H1:198.18.102.10) or all`);
    const [from, to] = [text.slice(0, colon), text.slice(colon + 1)];
    this.checkNode(from, at);
    this.checkTarget(to, at);
    return { probe: { kind: 'ping', target: to }, nodes: [from] };
  }

  private checkTarget(target: string, at: YamlPath): void {
    if (IPV4.test(target)) return;
    this.checkNode(target, at);
    if (!this.nodes.get(target)!.ip) throw this.where.error(at, `ping target ${target} has no ip: in the lab file; give its address`);
  }

  private checkNode(name: string, at: YamlPath): void {
    if (!this.nodes.has(name)) {
      throw this.where.error(at, `test "${this.raw.name}" names node "${name}", which the lab does not have; nodes: ${[...this.nodes.keys()].join(', ') || 'none'}`);
    }
  }

  private expectations(probe: Probe): Expectations {
    const { raw, path } = this;
    const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    const isPing = probe.kind === 'ping' || probe.kind === 'ping-all';
    if (isPing) {
      for (const key of ['exit', 'contains', 'not_contains', 'regex', 'json'] as const) {
        if (raw[key] !== undefined) throw this.where.keyError(path, key, `${key}: checks the output of exec: or console:; a ping test passes when a reply comes back`);
      }
    }
    let regex: RegExp | undefined;
    if (raw.regex !== undefined) {
      try {
        regex = new RegExp(raw.regex, 'm');
      } catch (err) {
        throw this.where.error([...path, 'regex'], `bad regex ${JSON.stringify(raw.regex)}: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
      }
    }
    if (raw.json) {
      const { equals, min, max } = raw.json;
      const has = (k: string) => Object.prototype.hasOwnProperty.call(raw.json, k);
      if (has('equals') && (min !== undefined || max !== undefined)) throw this.where.keyError([...path, 'json'], 'equals', 'json: takes equals: or min:/max:, not both');
      if (!has('equals') && min === undefined && max === undefined) throw this.where.keyError(path, 'json', 'json: needs equals: or min:/max:');
      if (min !== undefined && max !== undefined && min > max) throw this.where.error([...path, 'json', 'max'], `json: max ${max} is below min ${min}`);
      void equals;
      if (!pathSegments(raw.json.path)) throw this.where.error([...path, 'json', 'path'], `bad json path ${JSON.stringify(raw.json.path)}: expected keys and indexes, e.g. neighbors or routes["198.18.101.0/24"][0].prefix`);
    }
    const expect = raw.console?.expect;
    return { exit: raw.exit, contains: [...list(raw.contains), ...(expect !== undefined ? [expect] : [])], notContains: list(raw.not_contains), regex, json: raw.json };
  }

  private duration(key: 'retry' | 'wait'): number {
    const value = this.raw[key];
    if (value === undefined) return 0;
    const ms = parseDuration(value);
    if (ms === undefined) throw this.where.error([...this.path, key], `bad duration ${JSON.stringify(value)} for ${key}: expected e.g. 30s, 500ms, 2m`);
    return ms;
  }
}
