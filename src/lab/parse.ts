import { Ajv } from 'ajv';
import { LineCounter, parseDocument } from 'yaml';
import { LAB_FILE_SCHEMA } from './file-schema.js';
import { LabFileError, Locator, type YamlPath } from './locate.js';
import { schemaError } from './schema-errors.js';
import { readTests, type RawTest } from './lab-tests/parse.js';
import { checkMgmtAddresses, readMgmt } from './mgmt.js';
import { DEFAULT_SWITCH_PORTS, endLabel, linkKey, portsOf, type CloudPortSpec, type EndSpec, type LabSpec, type LinkSpec, type NodeSpec, type StartupFile, type SwitchPortSpec } from './model.js';

/** The lab file's content as JSON (what the schema checks). */
interface RawLab {
  name: string;
  defaults?: { compute?: string };
  nodes?: Record<string, RawNode>;
  links?: (string[] | RawLink)[];
  captures?: string[];
  tests?: RawTest[];
  mgmt?: { ipv4?: string; ipv6?: string | false; interface?: string; ssh?: boolean };
}
interface RawNode {
  type?: string;
  template?: string;
  compute?: string;
  x?: number;
  y?: number;
  ports?: Record<string, { type?: 'access' | 'dot1q' | 'qinq' | 'ethernet' | 'tap'; vlan?: number; ethertype?: string | number; name?: string; interface?: string }>;
  port_count?: number;
  ip?: string;
  gateway?: string;
  dns?: string;
  image?: string;
  ram?: number;
  adapters?: number;
  cpus?: number;
  kernel?: string;
  initrd?: string;
  kernel_command_line?: string;
  adapter_type?: string;
  env?: Record<string, string | number | boolean>;
  cmd?: string;
  files?: Record<string, string>;
  properties?: Record<string, unknown>;
  mgmt_ip?: string;
  mgmt_ipv6?: string;
}
interface RawLink {
  endpoints: string[];
  filters?: Record<string, unknown>;
  suspend?: boolean;
  capture?: boolean;
}

/** Keys that only some node types take. */
const TYPE_KEYS: Record<string, string[]> = {
  ports: ['ethernet_switch', 'cloud'],
  port_count: ['ethernet_switch', 'ethernet_hub'],
  ip: ['vpcs', 'docker'],
  gateway: ['vpcs'],
  dns: ['vpcs'],
  image: ['qemu', 'docker'],
  ram: ['qemu'],
  adapters: ['qemu', 'docker'],
  cpus: ['qemu'],
  kernel: ['qemu'],
  initrd: ['qemu'],
  kernel_command_line: ['qemu'],
  adapter_type: ['qemu'],
  env: ['docker'],
  cmd: ['docker'],
  files: ['docker'],
  mgmt_ip: ['docker', 'qemu'],
  mgmt_ipv6: ['docker', 'qemu'],
};

/** How many aliases (`*name`) a lab file may use: enough for shared settings, too few for an alias bomb ("billion laughs"). */
const MAX_ALIASES = 100;

/** The document as plain data; an alias bomb is a LabFileError, not a crash or a hang. */
function labContent(doc: ReturnType<typeof parseDocument>, where: Locator): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    if (err instanceof ReferenceError) throw where.error([], `too many aliases: a lab file may expand at most ${MAX_ALIASES} aliases (${err.message})`);
    throw err;
  }
}

let checkSchema: ReturnType<Ajv['compile']> | undefined;

/**
 * Reads a lab file: YAML, then its JSON Schema, then what a schema cannot say (unknown nodes in
 * links, ports that do not exist or are used twice, bad addresses). Any mistake is a LabFileError
 * naming the file, line and column; nothing here talks to a server.
 */
export function parseLab(text: string, file: string, env: Readonly<Record<string, string | undefined>> = process.env): LabSpec {
  const lines = new LineCounter();
  // merge: `<<: *router` shares settings between nodes, as in compose files (aliases stay capped).
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true, merge: true });
  if (doc.errors.length) {
    const err = doc.errors[0];
    const at = err.linePos?.[0] ?? { line: 1, col: 1 };
    throw new LabFileError(file, at, `invalid YAML: ${err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const where = new Locator(file, doc, lines);
  const raw = labContent(doc, where);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw where.error([], 'a lab file is a YAML mapping with at least name: and nodes:');
  checkSchema ??= new Ajv({ allErrors: true, strict: false }).compile(LAB_FILE_SCHEMA);
  if (!checkSchema(raw)) throw schemaError(checkSchema.errors ?? [], where);
  return new LabReader(raw as RawLab, where, env).read();
}

class LabReader {
  private readonly nodes = new Map<string, NodeSpec>();

  constructor(private readonly raw: RawLab, private readonly where: Locator, private readonly env: Readonly<Record<string, string | undefined>>) {}

  read(): LabSpec {
    const defaultCompute = this.raw.defaults?.compute ?? 'local';
    for (const name of this.where.keys(['nodes'])) this.nodes.set(name, this.node(name, this.raw.nodes![name], defaultCompute));
    const links = (this.raw.links ?? []).map((link, i) => this.link(link, i));
    this.checkPortsUsedOnce(links);
    this.markCaptures(links);
    const tests = readTests(this.raw.tests ?? [], this.where, this.nodes);
    const mgmt = this.raw.mgmt === undefined ? undefined : readMgmt(this.raw.mgmt, this.where);
    checkMgmtAddresses(mgmt, this.raw.nodes ?? {}, this.where);
    return { file: this.where.file, name: this.raw.name, namePos: this.where.at(['name']), nodes: [...this.nodes.values()], links, tests, ...(mgmt ? { mgmt } : {}) };
  }

  private node(name: string, raw: RawNode, defaultCompute: string): NodeSpec {
    const path = ['nodes', name];
    if (raw.type === undefined && raw.template === undefined) throw this.where.keyError(['nodes'], name, `node ${name} needs a type: or a template:`);
    if (raw.type !== undefined && raw.template !== undefined) throw this.where.keyError(path, 'template', `node ${name} has both type: and template:; give one`);
    for (const [key, types] of Object.entries(TYPE_KEYS)) {
      if ((raw as Record<string, unknown>)[key] === undefined) continue;
      if (raw.template !== undefined || !types.includes(raw.type!)) {
        throw this.where.keyError(path, key, `${key}: is for ${types.join(' and ')} nodes, not ${raw.type ?? `a template node`}`);
      }
    }
    const spec: NodeSpec = {
      name,
      pos: this.where.key(['nodes'], name),
      type: raw.type,
      template: raw.template,
      compute: raw.compute ?? defaultCompute,
      computePos: raw.compute !== undefined ? this.where.at([...path, 'compute']) : this.where.at(['defaults', 'compute']),
      x: raw.x,
      y: raw.y,
      properties: raw.properties,
      ...(raw.mgmt_ip !== undefined ? { mgmtIp: raw.mgmt_ip } : {}),
      ...(raw.mgmt_ipv6 !== undefined ? { mgmtIpv6: raw.mgmt_ipv6 } : {}),
    };
    if (raw.type === 'ethernet_switch') spec.switchPorts = this.switchPorts(path, raw);
    if (raw.type === 'cloud') spec.cloudPorts = this.cloudPorts(path, raw);
    if (raw.type === 'ethernet_hub') spec.hubPorts = raw.port_count;
    if (raw.type === 'vpcs') Object.assign(spec, this.addresses(path, raw));
    if (raw.type === 'qemu') {
      Object.assign(spec, { image: raw.image, ram: raw.ram, adapters: raw.adapters, cpus: raw.cpus, kernel: raw.kernel, initrd: raw.initrd,
        kernelCommandLine: raw.kernel_command_line, adapterType: raw.adapter_type });
    }
    if (raw.type === 'docker') Object.assign(spec, this.docker(path, raw));
    return spec;
  }

  /** A docker node: its image (with `${VAR}` taken from the environment), address, environment, command and startup files. */
  private docker(path: YamlPath, raw: RawNode): Partial<NodeSpec> {
    if (raw.image === undefined) throw this.where.keyError(['nodes'], path[1] as string, `docker node ${path[1]} needs an image:`);
    const image = expandVariables(raw.image, this.env, (reason) => this.where.error([...path, 'image'], reason));
    if (raw.ip !== undefined) this.addresses(path, raw);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw.env ?? {})) {
      if (/[\n\0]/.test(String(value))) throw this.where.error([...path, 'env', key], `env ${key}: a value is one line (GNS3 keeps the environment as KEY=VALUE lines)`);
      env[key] = String(value);
    }
    // The raw keys, not the document's: a merged (`<<`) node has them only there.
    const files = Object.keys(raw.files ?? {}).map((target) => startupFile(target, raw.files![target], this.where, [...path, 'files']));
    return { image, ip: raw.ip, adapters: raw.adapters, cmd: raw.cmd, ...(raw.env ? { env } : {}), ...(files.length ? { files } : {}) };
  }

  /** Every port of a switch: the ones listed with their settings, the others access ports in VLAN 1. */
  private switchPorts(path: YamlPath, raw: RawNode): SwitchPortSpec[] {
    const set = new Map<number, SwitchPortSpec>();
    // File order where the document has the keys; a switch that merged its ports (`<<: *sw`) has them only in the raw value.
    const keys = this.where.keys([...path, 'ports']);
    for (const key of keys.length ? keys : Object.keys(raw.ports ?? {})) {
      const settings = raw.ports![key];
      const [first, last = first] = key.split('-').map(Number);
      if (last < first) throw this.where.keyError([...path, 'ports'], key, `port range ${key} runs backwards`);
      if (settings.ethertype !== undefined && settings.type !== 'qinq') {
        throw this.where.keyError([...path, 'ports', key], 'ethertype', 'ethertype: is for qinq ports only');
      }
      if (settings.interface !== undefined) throw this.where.keyError([...path, 'ports', key], 'interface', 'interface: is for cloud ports');
      if (settings.type === 'ethernet' || settings.type === 'tap') throw this.where.error([...path, 'ports', key, 'type'], `a switch port is access, dot1q or qinq, not ${settings.type}`);
      if (settings.name !== undefined && last !== first) throw this.where.keyError([...path, 'ports', key], 'name', 'a port range cannot share one name');
      for (let port = first; port <= last; port++) {
        if (set.has(port)) throw this.where.keyError([...path, 'ports'], key, `port ${port} is set twice`);
        const type = settings.type ?? 'access';
        set.set(port, { port, name: settings.name ?? `Ethernet${port}`, type, vlan: settings.vlan ?? 1, ...(type === 'qinq' ? { ethertype: ethertypeText(settings.ethertype) } : {}) });
      }
    }
    const highest = Math.max(-1, ...set.keys());
    if (raw.port_count !== undefined && raw.port_count <= highest) {
      throw this.where.error([...path, 'port_count'], `port_count ${raw.port_count} leaves out port ${highest}, which ports: sets`);
    }
    const count = raw.port_count ?? Math.max(DEFAULT_SWITCH_PORTS, highest + 1);
    return Array.from({ length: count }, (_, port) => set.get(port) ?? { port, name: `Ethernet${port}`, type: 'access', vlan: 1 });
  }

  /** A cloud's ports: each one number, with the interface it bridges to. */
  private cloudPorts(path: YamlPath, raw: RawNode): CloudPortSpec[] {
    const ports: CloudPortSpec[] = [];
    for (const key of this.where.keys([...path, 'ports'])) {
      const settings = raw.ports![key];
      const at = [...path, 'ports', key];
      if (!/^\d+$/.test(key)) throw this.where.keyError([...path, 'ports'], key, 'a cloud port is one port number, not a range');
      for (const k of ['vlan', 'ethertype'] as const) if (settings[k] !== undefined) throw this.where.keyError(at, k, `${k}: is for switch ports`);
      if (settings.interface === undefined) throw this.where.keyError([...path, 'ports'], key, `cloud port ${key} needs an interface:`);
      const type = settings.type ?? 'ethernet';
      if (type !== 'ethernet' && type !== 'tap') throw this.where.error([...at, 'type'], `a cloud port is ethernet or tap, not ${type}`);
      ports.push({ port: Number(key), name: settings.name ?? settings.interface, type, interface: settings.interface });
    }
    return ports.sort((a, b) => a.port - b.port);
  }

  private addresses(path: YamlPath, raw: RawNode): Pick<NodeSpec, 'ip' | 'gateway' | 'dns'> {
    if (raw.ip !== undefined) {
      const [address, length] = raw.ip.split('/');
      if (!isIpv4(address) || Number(length) < 1 || Number(length) > 32) {
        throw this.where.error([...path, 'ip'], `bad CIDR "${raw.ip}": expected an IPv4 address/prefix length 1-32, e.g. 10.0.0.1/24`);
      }
    }
    for (const key of ['gateway', 'dns'] as const) {
      if (raw[key] !== undefined && !isIpv4(raw[key]!)) throw this.where.error([...path, key], `bad ${key} "${raw[key]}": expected an IPv4 address`);
    }
    if (raw.gateway !== undefined && raw.ip === undefined) throw this.where.keyError(path, 'gateway', 'gateway: needs ip:');
    return { ip: raw.ip, gateway: raw.gateway, dns: raw.dns };
  }

  private link(raw: string[] | RawLink, index: number): LinkSpec {
    const path = ['links', index];
    const object = Array.isArray(raw) ? undefined : raw;
    const endsPath = object ? [...path, 'endpoints'] : path;
    const texts = object ? object.endpoints : (raw as string[]);
    const ends = texts.map((text, i) => this.end(text, [...endsPath, i])) as [EndSpec, EndSpec];
    if (ends[0].node === ends[1].node) throw this.where.error([...endsPath, 1], `a link cannot connect ${ends[0].node} to itself`);
    return {
      ends,
      filters: object?.filters ? gns3Filters(object.filters) : {},
      suspend: object?.suspend ?? false,
      capture: object?.capture ?? false,
      pos: this.where.at(path),
    };
  }

  /** `NODE:ADAPTER/PORT`, `NODE:PORT` (adapter 0) or `NODE:PORT-NAME`, against the node's ports. */
  private end(text: string, path: YamlPath): EndSpec {
    const pos = this.where.at(path);
    const colon = text.lastIndexOf(':');
    const name = text.slice(0, colon);
    const portText = text.slice(colon + 1);
    const node = this.nodes.get(name);
    if (!node) {
      const known = [...this.nodes.keys()];
      throw new LabFileError(this.where.file, pos, `unknown node "${name}" in link end "${text}"; ${known.length ? `nodes: ${known.join(', ')}` : 'the file has no nodes'}`);
    }
    const ports = portsOf(node);
    const numbers = /^(\d+)\/(\d+)$/.exec(portText) ?? (/^\d+$/.test(portText) ? [portText, '0', portText] : undefined);
    const list = () => ports!.map((p) => `${p.name} (${p.adapter}/${p.port})`).join(', ');
    if (numbers) {
      const [adapter, port] = [Number(numbers[1]), Number(numbers[2])];
      if (ports && !ports.some((p) => p.adapter === adapter && p.port === port)) {
        throw new LabFileError(this.where.file, pos, `bad endpoint "${text}": ${name} has no port ${adapter}/${port}; its ports: ${list()}`);
      }
      return { node: name, adapter, port, pos };
    }
    if (!ports) throw new LabFileError(this.where.file, pos, `bad endpoint "${text}": the ports of ${name} are known only once it exists; use ADAPTER/PORT`);
    const lower = portText.toLowerCase();
    const found = ports.find((p) => p.name === portText || p.short === portText) ?? ports.find((p) => p.name.toLowerCase() === lower || p.short === lower);
    if (!found) throw new LabFileError(this.where.file, pos, `bad endpoint "${text}": ${name} has no port named ${portText}; its ports: ${list()}`);
    return { node: name, adapter: found.adapter, port: found.port, pos };
  }

  private checkPortsUsedOnce(links: LinkSpec[]): void {
    const used = new Map<string, EndSpec>();
    for (const link of links) {
      for (const end of link.ends) {
        const first = used.get(endLabel(end));
        if (first) throw new LabFileError(this.where.file, end.pos, `port ${endLabel(end)} is used twice (first at line ${first.pos.line})`);
        used.set(endLabel(end), end);
      }
    }
  }

  /** `captures: [A:0/0-B:0/0]`: each names a link of the file by its two ends (either order) or by one end. */
  private markCaptures(links: LinkSpec[]): void {
    (this.raw.captures ?? []).forEach((text, i) => {
      const pos = this.where.at(['captures', i]);
      const found = links.filter((link) => captureReadings(text).some((ends) =>
        ends.length === 2 ? linkKey(ends) === linkKey(link.ends) : link.ends.some((e) => endLabel(e) === endLabel(ends[0]))));
      if (found.length !== 1) {
        throw new LabFileError(this.where.file, pos, `captures: "${text}" names no link of this file; write its ends as NODE:ADAPTER/PORT-NODE:ADAPTER/PORT`);
      }
      found[0].capture = true;
    });
  }
}

/** The ways to read a capture reference: cut at each `-` into two `NODE:A/P` ends, or one end. */
function captureReadings(text: string): { node: string; adapter: number; port: number }[][] {
  const end = (t: string) => {
    const m = /^(.+):(\d+)\/(\d+)$/.exec(t) ?? /^(.+):()(\d+)$/.exec(t);
    return m ? { node: m[1], adapter: Number(m[2] || 0), port: Number(m[3]) } : undefined;
  };
  const readings: { node: string; adapter: number; port: number }[][] = [];
  for (let i = text.indexOf('-'); i >= 0; i = text.indexOf('-', i + 1)) {
    const [a, b] = [end(text.slice(0, i)), end(text.slice(i + 1))];
    if (a && b) readings.push([a, b]);
  }
  const single = end(text);
  if (single) readings.push([single]);
  return readings;
}

/** The file's filters in GNS3's form: `delay: 20` → `delay: [20, 0]`; a 0 turns a filter off (left out). */
export function gns3Filters(filters: Record<string, unknown>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [type, value] of Object.entries(filters)) {
    if (type === 'delay') {
      const [latency, jitter = 0] = Array.isArray(value) ? (value as number[]) : [value as number];
      if (latency !== 0) out.delay = [latency, jitter];
    } else if (type === 'bpf') {
      const text = String(value).split('\n').map((line) => line.trim()).filter(Boolean).join('\n');
      if (text) out.bpf = [text];
    } else if (value !== 0) {
      out[type] = [value];
    }
  }
  return out;
}

/** `${NAME}` and `${NAME:-default}` replaced by the environment's values; an unset one without a default is an error. */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, error: (reason: string) => Error): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    const value = env[name] || fallback;
    if (value === undefined) throw error(`\${${name}} is not set in the environment and has no default (write \${${name}:-DEFAULT})`);
    return value;
  });
}

/**
 * One `files:` entry: the container path must be absolute and plain (no `.`/`..` segment, not a
 * directory), the source a relative path below the lab file's directory (a lab file is untrusted
 * input: it may not name files elsewhere; startup-files.ts also refuses a link out when reading).
 */
function startupFile(target: string, source: string, where: Locator, path: YamlPath): StartupFile {
  const segments = target.split('/').slice(1);
  if (!target.startsWith('/') || segments.some((s) => s === '' || s === '.' || s === '..') || /[\0\n\r\\]/.test(target)) {
    throw where.keyError(path, target, `files: ${JSON.stringify(target)} is not a plain absolute file path in the container (no //, . or .. segment, trailing / or backslash)`);
  }
  if (segments.length < 2) throw where.keyError(path, target, `files: ${target} must be inside a directory (the directory becomes a volume of the node), not at /`);
  const parts = source.split(/[/\\]/);
  if (source.startsWith('/') || /^[A-Za-z]:/.test(source) || parts.includes('..') || source.includes('\0')) {
    throw where.error([...path, target], `files: source ${JSON.stringify(source)} must be a relative path below the lab file's directory (no absolute path, no ..)`);
  }
  return { path: target, source, pos: where.at([...path, target]) };
}

/** `0x88A8` as GNS3 writes it, whether the YAML held the text or (unquoted) the number. */
function ethertypeText(value: string | number | undefined): string {
  if (value === undefined) return '0x8100';
  return typeof value === 'number' ? `0x${value.toString(16).toUpperCase()}` : value;
}

function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}
