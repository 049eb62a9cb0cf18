// A strict fake of a GNS3 2.2.42 server (controller + its local compute), for running the
// CLI against what GNS3 does rather than what emuctl does. Its rules come from GNS3's
// handlers (gns3server/handlers/api/controller/*.py), controller (controller/*.py) and
// schemas (gns3-schemas.ts), not from the CLI:
// - request bodies validated like GNS3's route decorator: 400 "JSON schema error with API
//   request '…' and JSON data '…': <jsonschema message>", with path, request and method;
// - POST …/nodes needs compute_id; names are made unique the way GNS3 does (SW1 → SW2);
// - available_filters lists GNS3's five filters, or none on a link with no end that runs
//   filters (a switch to a hub); a filter the compute does not know is stored on the link
//   anyway (Link.update_filters) and the compute then refuses it (409), again at every
//   later change, as ubridge does;
// - close answers 204 with no body; PUT link 201; capture names are joined to the
//   captures directory as given (GNS3 2.2 does not check them);
// - a node's name and properties go to its compute, which checks them with its own schema
//   (vpcs, ethernet_switch, ethernet_hub, qemu): a refusal is the controller's 400 "Bad request URL
//   BODY". The controller keeps the properties a node was created with and sends them all again
//   with every change that reaches the compute (Node._node_data), so a VPCS created with a
//   startup_script property cannot be renamed (VPCS_UPDATE_SCHEMA has no startup_script);
// - node files (GET/POST …/nodes/{node_id}/files/{path}): raw bytes; a VPCS's startup.vpc is
//   written from startup_script when it is created (%h → its name) and its `set pcname` line
//   follows renames; a missing file is a 404;
// - templates (controller/template_manager.py, template.py): GNS3's seven built-in ones with
//   their uuid3 ids; a custom one is checked against TEMPLATE_CREATE_SCHEMA, then against its
//   type's schema with its defaults filled in (vpcs, ethernet_switch and ethernet_hub are
//   modelled; other GNS3 types get the base defaults only); a node from a template is named
//   from default_name_format by update_allocated_node_name ({0} → first free number); the VPCS
//   template's base_script_file becomes startup.vpc (`set pcname %h`), sent once (Node._node_data);
// - snapshots (snapshot.py): a taken name is a 409, a running project cannot be exported or
//   snapshotted (409), a restore gives the nodes and links new ids and leaves the project opened;
// - export is a real ZIP (project.gns3 at its root), import reads one (409 for a bad ZIP or no
//   project.gns3), duplicate needs a name (PROJECT_DUPLICATE_SCHEMA); imported and duplicated
//   projects are closed and take a free name (`name-1`);
// - no emuctl-only routes: an unknown route is aiohttp's plain-text "404: Not Found";
// - every answer has X-Route (the route template) and Connection: close.
// Nothing runs: node start/stop only changes the status; a VPCS console is a port of the
// fake's own that closes every connection at once (no telnet, and never another test's
// VPCS). Every request is recorded.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import yauzl from 'yauzl';
import yazl from 'yazl';
import {
  COMPUTE_CREATE, COMPUTE_NODE_CREATE, COMPUTE_NODE_UPDATE, LINK, LINK_CAPTURE, NODE_CREATE, NODE_TYPES, NODE_UPDATE, PROJECT_CREATE, PROJECT_DUPLICATE, PROJECT_UPDATE,
  schemaError, SNAPSHOT_CREATE, TEMPLATE_CREATE, TEMPLATE_TYPE_SCHEMAS, TEMPLATE_USAGE, BASE_TEMPLATE_PROPERTIES, type Schema,
} from './gns3-schemas.js';

export const FAKE_GNS3_VERSION = '2.2.42';

/** GNS3's FILTERS (controller/link.py): the only filters a GNS3 2.2 link offers. */
export const GNS3_FILTER_TYPES = ['frequency_drop', 'packet_loss', 'delay', 'corrupt', 'bpf'];
const FILTERS = [
  { type: 'frequency_drop', name: 'Frequency drop', parameters: [{ name: 'Frequency', minimum: -1, maximum: 32767, type: 'int', unit: 'th packet' }] },
  { type: 'packet_loss', name: 'Packet loss', parameters: [{ name: 'Chance', minimum: 0, maximum: 100, type: 'int', unit: '%' }] },
  { type: 'delay', name: 'Delay', parameters: [{ name: 'Latency', minimum: 0, maximum: 32767, unit: 'ms', type: 'int' }, { name: 'Jitter (-/+)', minimum: 0, maximum: 32767, unit: 'ms', type: 'int' }] },
  { type: 'corrupt', name: 'Corrupt', parameters: [{ name: 'Chance', minimum: 0, maximum: 100, unit: '%', type: 'int' }] },
  { type: 'bpf', name: 'Berkeley Packet Filter (BPF)', parameters: [{ name: 'Filters', type: 'text' }] },
].map((f) => ({ ...f, description: f.name }));

const FILTER_NODE_TYPES = ['vpcs', 'traceng', 'vmware', 'dynamips', 'qemu', 'iou', 'cloud', 'nat', 'virtualbox', 'docker'];

/** One request the fake received. */
export interface Recorded {
  method: string;
  path: string;
  body: any;
  status: number;
}

type Json = Record<string, any>;

interface Project extends Json { project_id: string; name: string; status: string }
interface FakeNode extends Json { node_id: string; name: string; node_type: string; ports: Json[] }
interface FakeLink extends Json { link_id: string; nodes: Json[]; filters: Json }

/** An answer, or a GNS3 error (HTTP status + message). */
class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

interface Call {
  params: Record<string, string>;
  body: Json;
  /** The request body as received (import reads a ZIP). */
  raw: Buffer;
  route: string;
}

/** A JSON answer, or bytes (`data`) with their content type and headers. */
interface Answer {
  status: number;
  body?: unknown;
  data?: { bytes: Buffer; contentType: string; headers?: Record<string, string> };
}

type Handler = (call: Call) => Answer | Promise<Answer>;

/** GNS3's built-in templates (TemplateManager.load_templates), with their uuid3(NAMESPACE_DNS, type) ids. */
const BUILTIN_TEMPLATES = [
  { template_id: '39e257dc-8412-3174-b6b3-0ee3ed6a43e9', template_type: 'cloud', name: 'Cloud', default_name_format: 'Cloud{0}', category: 'guest', symbol: ':/symbols/cloud.svg' },
  { template_id: 'df8f4ea9-33b7-3e96-86a2-c39bc9bb649c', template_type: 'nat', name: 'NAT', default_name_format: 'NAT{0}', category: 'guest', symbol: ':/symbols/cloud.svg' },
  {
    template_id: '19021f99-e36f-394d-b4a1-8aaa902ab9cc', template_type: 'vpcs', name: 'VPCS', default_name_format: 'PC{0}', category: 'guest', symbol: ':/symbols/vpcs_guest.svg',
    properties: { base_script_file: 'vpcs_base_config.txt' },
  },
  { template_id: '1966b864-93e7-32d5-965f-001384eec461', template_type: 'ethernet_switch', console_type: 'none', name: 'Ethernet switch', default_name_format: 'Switch{0}', category: 'switch', symbol: ':/symbols/ethernet_switch.svg' },
  { template_id: 'b4503ea9-d6b6-3695-9fe4-1db3b39290b0', template_type: 'ethernet_hub', name: 'Ethernet hub', default_name_format: 'Hub{0}', category: 'switch', symbol: ':/symbols/hub.svg' },
  { template_id: 'dd0f6f3a-ba58-3249-81cb-a1dd88407a47', template_type: 'frame_relay_switch', name: 'Frame Relay switch', default_name_format: 'FRSW{0}', category: 'switch', symbol: ':/symbols/frame_relay_switch.svg' },
  { template_id: 'aaa764e2-b383-300f-8a0e-3493bbfdb7d2', template_type: 'atm_switch', name: 'ATM switch', default_name_format: 'ATMSW{0}', category: 'switch', symbol: ':/symbols/atm_switch.svg' },
].map((t) => ({ ...t, builtin: true, compute_id: null }));

/** Node types that always run (Node.is_always_running): they never keep a project from being exported. */
const ALWAYS_RUNNING = ['cloud', 'nat', 'ethernet_switch', 'ethernet_hub', 'frame_relay_switch', 'atm_switch'];

/** A ZIP of the entries, as GNS3's exports are. */
function zipOf(entries: Record<string, Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of Object.entries(entries)) zip.addBuffer(bytes, name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

/** One entry of a ZIP held in memory; undefined when there is none by that name; rejects when the bytes are no ZIP. */
function zipEntry(bytes: Buffer, name: string): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== name) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
            zip.close();
            resolve(Buffer.concat(chunks));
          }).on('error', reject);
        });
      });
      zip.on('end', () => resolve(undefined)).on('error', reject);
      zip.readEntry();
    });
  });
}

export interface FakeGns3 {
  url: string;
  /** Every request so far, oldest first. */
  requests: Recorded[];
  /** Requests whose path (without /v2) matches. */
  sent(method: string, path: RegExp): Recorded[];
  projects: Map<string, Project>;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 and an ephemeral port. */
export async function startFakeGns3(): Promise<FakeGns3> {
  const projects = new Map<string, Project>();
  const nodes = new Map<string, Map<string, FakeNode>>();
  const links = new Map<string, Map<string, FakeLink>>();
  const computes = new Map<string, Json>();
  const templates = new Map<string, Json>(BUILTIN_TEMPLATES.map((t) => [t.template_id, t]));
  const snapshots = new Map<string, Map<string, { json: Json; nodes: FakeNode[]; links: FakeLink[] }>>();
  const requests: Recorded[] = [];
  /** node_id → path in the node directory → content. */
  const files = new Map<string, Map<string, string>>();
  let port = 0;
  const consoles = createTcpServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => consoles.listen(0, '127.0.0.1', resolve));
  const consolePort = (consoles.address() as AddressInfo).port;

  const project = (id: string): Project => {
    const p = projects.get(id);
    if (!p) throw new HttpError(404, `Project ID ${id} doesn't exist`);
    // get_loaded_project: a closed project is opened by any node or link call.
    p.status = 'opened';
    return p;
  };
  const nodesOf = (pid: string) => nodes.get(project(pid).project_id)!;
  const linksOf = (pid: string) => links.get(project(pid).project_id)!;
  const node = (pid: string, id: string): FakeNode => {
    const n = nodesOf(pid).get(id);
    if (!n) throw new HttpError(404, `Node ID ${id} doesn't exist`);
    return n;
  };
  const link = (pid: string, id: string): FakeLink => {
    const l = linksOf(pid).get(id);
    if (!l) throw new HttpError(404, `Link ID ${id} doesn't exist`);
    return l;
  };
  const capturesDir = (pid: string) => `/opt/gns3/projects/${pid}/project-files/captures`;

  /** The compute's schema check of what the controller sends it (Node._node_data), as the controller reports a refusal. */
  const computeCheck = (pid: string, type: string, id: string | undefined, data: Json, schemas: Record<string, Schema>) => {
    const schema = schemas[type];
    const error = schema && schemaError(data, schema);
    if (!error) return;
    const url = `http://127.0.0.1:${port}/v2/compute/projects/${pid}/${type}/nodes${id ? `/${id}` : ''}`;
    const message = `JSON schema error with API request '${url.replace(/^http:\/\/[^/]+/, '')}' and JSON data '${JSON.stringify(data)}': ${error}`;
    throw new HttpError(400, `Bad request ${url} ${JSON.stringify({ message, status: 400 })}`);
  };
  /** What the controller sends the compute for a node: its properties (None left out), name, console and console_type. */
  const computeData = (n: Json, properties: Json) => {
    const data: Json = {};
    for (const [k, v] of Object.entries(properties)) if (v !== null && v !== undefined) data[k] = v;
    data.name = n.name;
    if (n.console) data.console = n.console;
    if (n.console_type && !['cloud', 'nat', 'ethernet_hub', 'frame_relay_switch', 'atm_switch'].includes(n.node_type)) data.console_type = n.console_type;
    return data;
  };

  /**
   * Project.update_allocated_node_name: spaces removed; a taken name gets its trailing number
   * replaced by {0}; {0} and {id} are the first free number; else a number is appended.
   */
  const allocateName = (pid: string, wanted: string): string => {
    const taken = new Set([...nodesOf(pid).values()].map((n) => n.name));
    let base = wanted.replace(/ /g, '');
    if (taken.has(base)) base = base.replace(/[0-9]+$/, '{0}');
    if (base.includes('{0}') || base.includes('{id}')) {
      for (let i = 1; ; i++) {
        const name = base.replace(/\{(0|id)\}/g, String(i)).replace(/\{name\}/g, 'Node');
        if (/\{[^}]*\}/.test(name)) throw new HttpError(409, `${base} is not a valid replacement string in the node name`);
        if (!taken.has(name)) return name;
      }
    }
    if (!taken.has(base)) return base;
    for (let i = 1; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
  };

  /** Controller.get_free_project_name: the name, else `name-1`, `name-2`… */
  const freeProjectName = (base: string): string => {
    const names = new Set([...projects.values()].map((p) => p.name));
    if (!names.has(base)) return base;
    for (let i = 1; ; i++) if (!names.has(`${base}-${i}`)) return `${base}-${i}`;
  };

  /** A project as POST /projects makes it (status opened), or as an import registers it (closed). */
  const addProject = (fields: Json, status: 'opened' | 'closed'): Project => {
    const id = fields.project_id ?? randomUUID();
    const created: Project = {
      auto_close: true, auto_open: false, auto_start: false, drawing_grid_size: 25, filename: `${fields.name}.gns3`, grid_size: 75,
      scene_height: 1000, scene_width: 2000, show_grid: false, show_interface_labels: false, show_layers: false, snap_to_grid: false,
      supplier: null, variables: null, zoom: 100, ...fields, name: String(fields.name), path: `/opt/gns3/projects/${id}`, project_id: id, status,
    };
    projects.set(id, created);
    nodes.set(id, new Map());
    links.set(id, new Map());
    snapshots.set(id, new Map());
    return created;
  };

  /** Nodes and links copied into a project with new ids (import_project renumbers them all). */
  const copyTopology = (pid: string, from: { nodes: Json[]; links: Json[] }) => {
    const ids = new Map<string, string>();
    // Straight to the maps: unlike a client's node or link call, this opens no project.
    const projectNodes = nodes.get(pid)!;
    const projectLinks = links.get(pid)!;
    projectNodes.clear();
    projectLinks.clear();
    for (const n of from.nodes) {
      const copy = { ...structuredClone(n), node_id: randomUUID(), project_id: pid, status: 'stopped' } as unknown as FakeNode;
      ids.set(n.node_id, copy.node_id);
      projectNodes.set(copy.node_id, copy);
    }
    for (const l of from.links) {
      const copy = { ...structuredClone(l), link_id: randomUUID(), project_id: pid, capturing: false } as unknown as FakeLink;
      copy.nodes = copy.nodes.map((e) => ({ ...e, node_id: ids.get(e.node_id) }));
      projectLinks.set(copy.link_id, copy);
    }
  };

  /** Project.is_running: a node that is not always running and not stopped keeps a project from being exported. */
  const assertStopped = (pid: string) => {
    if ([...nodesOf(pid).values()].some((n) => !ALWAYS_RUNNING.includes(n.node_type) && n.status !== 'stopped')) {
      throw new HttpError(409, 'Project must be stopped in order to export it');
    }
  };

  /** A template as Template() makes it: old categories as text, checked against its type's schema with its defaults filled in. */
  const checkedTemplate = (settings: Json): Json => {
    const template: Json = { ...settings };
    const categories = ['router', 'switch', 'guest', 'firewall'];
    if (typeof template.category === 'number') template.category = categories[template.category] ?? template.category;
    const type = TEMPLATE_TYPE_SCHEMAS[template.template_type];
    const defaults: Json = type ? { category: type.category, default_name_format: type.default_name_format, symbol: type.symbol } : {};
    for (const [key, field] of Object.entries(type?.fields ?? {})) defaults[key] = structuredClone(field.default);
    for (const [key, value] of Object.entries(defaults)) template[key] ??= value;
    if (type) {
      const error = schemaError(template, { type: 'object', properties: { ...BASE_TEMPLATE_PROPERTIES, ...type.fields }, additionalProperties: false });
      if (error) throw new HttpError(400, `JSON schema error adding template with JSON data '${JSON.stringify(settings)}': ${error}`);
    }
    return { ...template, builtin: false };
  };
  const template = (id: string): Json => {
    const t = templates.get(id);
    if (!t) throw new HttpError(404, `Template ID ${id} doesn't exist`);
    return t;
  };
  const snapshot = (pid: string, id: string) => {
    const found = snapshots.get(project(pid).project_id)!.get(id);
    if (!found) throw new HttpError(404, `Snapshot ID ${id} doesn't exist`);
    return found;
  };

  const ethernetPorts = (count: number) => Array.from({ length: count }, (_, i) => ({
    name: `Ethernet${i}`, short_name: `e${i}`, adapter_number: 0, port_number: i, link_type: 'ethernet', data_link_types: { Ethernet: 'DLT_EN10MB' },
  }));

  const adapterPorts = (count: number) => Array.from({ length: count }, (_, i) => ({
    name: `Ethernet${i}`, short_name: `e${i}`, adapter_number: i, port_number: 0, link_type: 'ethernet', data_link_types: { Ethernet: 'DLT_EN10MB' },
  }));

  const createNode = (pid: string, body: Json): FakeNode => {
    if (!computes.has(body.compute_id)) throw new HttpError(404, `Compute ID ${body.compute_id} doesn't exist`);
    const properties: Json = { ...(body.properties ?? {}) };
    let ports: Json[];
    let console: number | null = null;
    let consoleType: string | null = 'none';
    if (body.node_type === 'ethernet_switch') {
      properties.ports_mapping ??= Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: 'access', vlan: 1, ethertype: '' }));
      ports = ethernetPorts(properties.ports_mapping.length);
    } else if (body.node_type === 'ethernet_hub') {
      properties.ports_mapping ??= Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i }));
      ports = ethernetPorts(properties.ports_mapping.length);
    } else if (body.node_type === 'vpcs') {
      ports = ethernetPorts(1);
      console = consolePort;
      consoleType = 'telnet';
    } else if (body.node_type === 'qemu') {
      // QemuVM's defaults come back from the compute; the ports are StandardPortFactory's, one per adapter.
      properties.adapters ??= 1;
      properties.ram ??= 256;
      ports = adapterPorts(properties.adapters);
      console = consolePort;
      consoleType = 'telnet';
    } else {
      throw new HttpError(409, `Node type ${body.node_type} cannot run on this fake compute`);
    }
    const id = body.node_id ?? randomUUID();
    const name = allocateName(pid, body.name);
    computeCheck(pid, body.node_type, undefined, { ...computeData({ name, node_type: body.node_type }, properties), node_id: id }, COMPUTE_NODE_CREATE);
    if (body.node_type === 'vpcs' && typeof properties.startup_script === 'string') {
      files.set(id, new Map([['startup.vpc', properties.startup_script.replace(/%h/g, name)]]));
    }
    const created: FakeNode = {
      command_line: null, compute_id: body.compute_id, console, console_auto_start: false, console_host: '127.0.0.1', console_type: consoleType,
      custom_adapters: [], first_port_name: null, height: 59, label: { rotation: 0, style: null, text: name, x: null, y: -40 }, locked: false,
      name, node_directory: null, node_id: id, node_type: body.node_type, port_name_format: 'Ethernet{0}', port_segment_size: 0, ports,
      // The switch and the hub always run (their compute JSON says "status": "started").
      project_id: pid, properties, status: ['ethernet_switch', 'ethernet_hub'].includes(body.node_type) ? 'started' : 'stopped', symbol: body.symbol ?? ':/symbols/computer.svg',
      template_id: body.template_id ?? null, width: 65,
      x: body.x ?? 0, y: body.y ?? 0, z: body.z ?? 1,
    };
    nodesOf(pid).set(id, created);
    return created;
  };

  /** Link.update_filters: values as ints (strings trimmed), off when the first is 0 or ''. */
  const normaliseFilters = (filters: Json): Json => {
    const kept: Json = {};
    for (const [type, values] of Object.entries(filters)) {
      const list = (values as unknown[]).map((v) => (typeof v === 'string' ? v.trim() : Math.trunc(Number(v))));
      if (list.length && list[0] !== 0 && list[0] !== '') kept[type] = list;
    }
    return kept;
  };

  /** Link._get_filter_node: filters run on the end that is one of these types; switches and hubs have none. */
  const hasFilterNode = (l: FakeLink) => l.nodes.some((e) => FILTER_NODE_TYPES.includes(node(l.project_id, e.node_id).node_type));

  /**
   * The compute applying a link's active filters (ubridge's add_packet_filter): an unknown
   * type is refused. A suspended link's only active filter is frequency_drop -1.
   */
  const applyFilters = (l: FakeLink) => {
    if (!hasFilterNode(l)) return;
    const active = l.suspend ? { frequency_drop: [-1] } : l.filters;
    const unknown = Object.keys(active).filter((type) => !GNS3_FILTER_TYPES.includes(type));
    if (unknown.length) throw new HttpError(409, `unknown packet filter type '${unknown[0]}'`);
  };

  const linkJson = (l: FakeLink) => l;

  const routes: [string, string, Schema | undefined, Handler][] = [
    ['GET', '/version', undefined, () => ({ status: 200, body: { local: true, version: FAKE_GNS3_VERSION } })],
    ['GET', '/computes', undefined, () => ({ status: 200, body: [...computes.values()] })],
    ['POST', '/computes', COMPUTE_CREATE, ({ body }) => {
      const compute = { compute_id: body.compute_id ?? randomUUID(), name: body.name ?? `${body.protocol}://${body.host}:${body.port}`, protocol: body.protocol,
        host: body.host, port: body.port, user: body.user ?? null, connected: false, cpu_usage_percent: null, memory_usage_percent: null,
        last_error: null, capabilities: { node_types: [], version: null } };
      computes.set(compute.compute_id, compute);
      return { status: 201, body: compute };
    }],
    ['GET', '/computes/{compute_id}', undefined, ({ params }) => {
      const compute = computes.get(params.compute_id);
      if (!compute) throw new HttpError(404, `Compute ID ${params.compute_id} doesn't exist`);
      return { status: 200, body: compute };
    }],
    // GNS3 2.2's port manager of the compute (its __json__): ranges and the ports in use.
    ['GET', '/computes/{compute_id}/ports', undefined, ({ params }) => {
      if (!computes.has(params.compute_id)) throw new HttpError(404, `Compute ID ${params.compute_id} doesn't exist`);
      const consolesInUse = new Set([...nodes.values()].flatMap((m) => [...m.values()]).map((n) => n.console).filter((c): c is number => typeof c === 'number'));
      return { status: 200, body: { console_port_range: [5000, 10000], console_ports: [...consolesInUse], udp_port_range: [10000, 20000], udp_ports: [] } };
    }],
    ['DELETE', '/computes/{compute_id}', undefined, ({ params }) => {
      if (!computes.delete(params.compute_id)) throw new HttpError(404, `Compute ID ${params.compute_id} doesn't exist`);
      return { status: 204 };
    }],
    ['GET', '/projects', undefined, () => ({ status: 200, body: [...projects.values()] })],
    ['POST', '/projects', PROJECT_CREATE, ({ body }) => {
      if ([...projects.values()].some((p) => p.name === body.name)) throw new HttpError(409, `Project "${body.name}" already exists`);
      return { status: 201, body: addProject(body, 'opened') };
    }],
    ['GET', '/projects/{project_id}', undefined, ({ params }) => {
      const p = projects.get(params.project_id);
      if (!p) throw new HttpError(404, `Project ID ${params.project_id} doesn't exist`);
      return { status: 200, body: p };
    }],
    ['PUT', '/projects/{project_id}', PROJECT_UPDATE, ({ params, body }) => {
      const p = projects.get(params.project_id);
      if (!p) throw new HttpError(404, `Project ID ${params.project_id} doesn't exist`);
      Object.assign(p, body);
      return { status: 200, body: p };
    }],
    ['DELETE', '/projects/{project_id}', undefined, ({ params }) => {
      if (!projects.delete(params.project_id)) throw new HttpError(404, `Project ID ${params.project_id} doesn't exist`);
      return { status: 204 };
    }],
    ['POST', '/projects/{project_id}/open', undefined, ({ params }) => ({ status: 201, body: project(params.project_id) })],
    ['POST', '/projects/{project_id}/close', undefined, ({ params }) => {
      const p = projects.get(params.project_id);
      if (!p) throw new HttpError(404, `Project ID ${params.project_id} doesn't exist`);
      p.status = 'closed';
      return { status: 204 };
    }],
    ['GET', '/projects/{project_id}/nodes', undefined, ({ params }) => ({ status: 200, body: [...nodesOf(params.project_id).values()] })],
    ['POST', '/projects/{project_id}/nodes', NODE_CREATE, ({ params, body }) => ({ status: 201, body: createNode(params.project_id, body) })],
    ...(['start', 'stop', 'suspend', 'reload'] as const).map((action): [string, string, Schema | undefined, Handler] => [
      'POST', `/projects/{project_id}/nodes/${action}`, undefined, ({ params }) => {
        for (const n of nodesOf(params.project_id).values()) n.status = action === 'stop' ? 'stopped' : action === 'suspend' ? 'suspended' : 'started';
        return { status: 204 };
      }]),
    ['GET', '/projects/{project_id}/nodes/{node_id}', undefined, ({ params }) => ({ status: 200, body: node(params.project_id, params.node_id) })],
    ['PUT', '/projects/{project_id}/nodes/{node_id}', NODE_UPDATE, ({ params, body }) => {
      const n = node(params.project_id, params.node_id);
      const { properties, ...fields } = body;
      const controllerOnly = ['x', 'y', 'z', 'locked', 'width', 'height', 'symbol', 'label', 'console_host', 'port_name_format', 'first_port_name', 'port_segment_size', 'ports', 'console_auto_start'];
      const reachesCompute = properties !== undefined || Object.keys(fields).some((k) => !controllerOnly.includes(k) && JSON.stringify(n[k]) !== JSON.stringify(fields[k]));
      if (fields.name !== undefined && fields.name !== n.name) fields.name = allocateName(params.project_id, fields.name);
      if (reachesCompute) computeCheck(params.project_id, n.node_type, n.node_id, computeData({ ...n, ...fields }, properties ?? n.properties), COMPUTE_NODE_UPDATE);
      // VPCSVM.name: the new name replaces the old one in the script, and the pcname line.
      const script = files.get(n.node_id)?.get('startup.vpc');
      if (n.node_type === 'vpcs' && script !== undefined && fields.name !== undefined && fields.name !== n.name) {
        files.get(n.node_id)!.set('startup.vpc', script.split(n.name).join(fields.name).replace(/^set pcname .+$/m, `set pcname ${fields.name}`));
      }
      Object.assign(n, fields);
      if (properties) Object.assign(n.properties, properties);
      if (properties?.ports_mapping) n.ports = ethernetPorts(properties.ports_mapping.length);
      if (n.node_type === 'qemu' && properties?.adapters !== undefined) n.ports = adapterPorts(properties.adapters);
      return { status: 200, body: n };
    }],
    ['DELETE', '/projects/{project_id}/nodes/{node_id}', undefined, ({ params }) => {
      node(params.project_id, params.node_id);
      for (const [id, l] of linksOf(params.project_id)) if (l.nodes.some((e) => e.node_id === params.node_id)) linksOf(params.project_id).delete(id);
      nodesOf(params.project_id).delete(params.node_id);
      return { status: 204 };
    }],
    ...(['start', 'stop', 'suspend', 'reload'] as const).map((action): [string, string, Schema | undefined, Handler] => [
      'POST', `/projects/{project_id}/nodes/{node_id}/${action}`, undefined, ({ params }) => {
        const n = node(params.project_id, params.node_id);
        n.status = action === 'stop' ? 'stopped' : action === 'suspend' ? 'suspended' : 'started';
        return { status: 200, body: n };
      }]),
    ['GET', '/projects/{project_id}/nodes/{node_id}/files/{path:.+}', undefined, ({ params }) => {
      const n = node(params.project_id, params.node_id);
      if (params.path.startsWith('.') || params.path.includes('/../')) throw new HttpError(403, 'Forbidden');
      const content = files.get(n.node_id)?.get(params.path);
      if (content === undefined) throw new HttpError(404, `GET /projects/${params.project_id}/files/project-files/${n.node_type}/${n.node_id}/${params.path} not found`);
      return { status: 200, data: { bytes: Buffer.from(content), contentType: 'application/octet-stream' } };
    }],
    ['POST', '/projects/{project_id}/nodes/{node_id}/files/{path:.+}', undefined, ({ params, raw }) => {
      const n = node(params.project_id, params.node_id);
      if (params.path.startsWith('.') || params.path.includes('/../')) throw new HttpError(403, 'Forbidden');
      if (!files.has(n.node_id)) files.set(n.node_id, new Map());
      files.get(n.node_id)!.set(params.path, raw.toString('utf8'));
      return { status: 201 };
    }],
    ['GET', '/projects/{project_id}/links', undefined, ({ params }) => ({ status: 200, body: [...linksOf(params.project_id).values()].map(linkJson) })],
    ['POST', '/projects/{project_id}/links', LINK, ({ params, body }) => {
      const pid = params.project_id;
      const created: FakeLink = { capture_compute_id: null, capture_file_name: null, capture_file_path: null, capturing: false, filters: {},
        link_id: randomUUID(), link_style: body.link_style ?? {}, link_type: 'ethernet', nodes: [], project_id: pid, suspend: body.suspend ?? false };
      created.filters = normaliseFilters(body.filters ?? {});
      linksOf(pid).set(created.link_id, created);
      if (!Array.isArray(body.nodes)) throw new HttpError(500, "Internal server error: KeyError 'nodes'");
      try {
        for (const end of body.nodes) {
          const n = node(pid, end.node_id);
          if (created.nodes.some((e) => e.node_id === end.node_id)) throw new HttpError(409, 'Cannot connect to itself');
          const port = n.ports.find((p) => p.adapter_number === end.adapter_number && p.port_number === end.port_number);
          if (!port) throw new HttpError(404, `Port ${end.adapter_number}/${end.port_number} for ${n.name} not found`);
          const used = [...linksOf(pid).values()].some((l) => l.nodes.some((e) => e.node_id === end.node_id && e.adapter_number === end.adapter_number && e.port_number === end.port_number));
          if (used) throw new HttpError(409, 'Port is already used');
          created.nodes.push({ adapter_number: end.adapter_number, label: end.label ?? { text: port.short_name, x: 0, y: 0 }, node_id: end.node_id, port_number: end.port_number });
        }
        // The second end creates the link on the computes, with its filters.
        applyFilters(created);
      } catch (err) {
        linksOf(pid).delete(created.link_id);
        throw err;
      }
      return { status: 201, body: linkJson(created) };
    }],
    ['GET', '/projects/{project_id}/links/{link_id}', undefined, ({ params }) => ({ status: 200, body: linkJson(link(params.project_id, params.link_id)) })],
    ['PUT', '/projects/{project_id}/links/{link_id}', LINK, ({ params, body }) => {
      const l = link(params.project_id, params.link_id);
      const filters = body.filters === undefined ? l.filters : normaliseFilters(body.filters);
      if (JSON.stringify(filters) !== JSON.stringify(l.filters)) {
        // Stored first, then applied on the compute: a refused filter stays on the link.
        l.filters = filters;
        applyFilters(l);
      }
      if (body.suspend !== undefined && body.suspend !== l.suspend) {
        l.suspend = body.suspend;
        applyFilters(l);
      }
      if (body.link_style !== undefined) l.link_style = body.link_style;
      return { status: 201, body: linkJson(l) };
    }],
    ['DELETE', '/projects/{project_id}/links/{link_id}', undefined, ({ params }) => {
      link(params.project_id, params.link_id);
      linksOf(params.project_id).delete(params.link_id);
      return { status: 204 };
    }],
    ['GET', '/projects/{project_id}/links/{link_id}/available_filters', undefined, ({ params }) => {
      return { status: 200, body: hasFilterNode(link(params.project_id, params.link_id)) ? FILTERS : [] };
    }],
    ['POST', '/projects/{project_id}/links/{link_id}/start_capture', LINK_CAPTURE, ({ params, body }) => {
      const l = link(params.project_id, params.link_id);
      const ends = l.nodes.map((e): Json => ({ ...e, name: node(params.project_id, e.node_id).name }));
      const name = body.capture_file_name
        ?? `${`${ends[0].name}_${ends[0].adapter_number}-${ends[0].port_number}_to_${ends[1].name}_${ends[1].adapter_number}-${ends[1].port_number}`.replace(/[^0-9A-Za-z_-]/g, '')}.pcap`;
      Object.assign(l, { capturing: true, capture_file_name: name, capture_file_path: `${capturesDir(params.project_id)}/${name}`, capture_compute_id: 'local' });
      return { status: 201, body: linkJson(l) };
    }],
    ['POST', '/projects/{project_id}/links/{link_id}/stop_capture', undefined, ({ params }) => {
      const l = link(params.project_id, params.link_id);
      Object.assign(l, { capturing: false, capture_compute_id: null });
      return { status: 201, body: linkJson(l) };
    }],
    ['GET', '/projects/{project_id}/links/{link_id}/pcap', undefined, ({ params }) => {
      if (!link(params.project_id, params.link_id).capturing) throw new HttpError(409, 'This link has no active packet capture');
      throw new HttpError(409, 'This fake records no frames');
    }],

    ['GET', '/templates', undefined, () => ({ status: 200, body: [...templates.values()] })],
    ['POST', '/templates', TEMPLATE_CREATE, ({ body }) => {
      const id = body.template_id ?? randomUUID();
      if (templates.has(id)) throw new HttpError(409, `Template ID '${id}' already exists`);
      const created = checkedTemplate({ ...body, template_id: id });
      templates.set(id, created);
      return { status: 201, body: created };
    }],
    ['GET', '/templates/{template_id}', undefined, ({ params }) => ({ status: 200, body: template(params.template_id) })],
    ['DELETE', '/templates/{template_id}', undefined, ({ params }) => {
      if (template(params.template_id).builtin) throw new HttpError(409, `Template ID ${params.template_id} cannot be deleted because it is a builtin`);
      templates.delete(params.template_id);
      return { status: 204 };
    }],
    ['POST', '/projects/{project_id}/templates/{template_id}', TEMPLATE_USAGE, ({ params, body }) => {
      project(params.project_id);
      const { template_id, template_type, builtin, compute_id, name, default_name_format, category: _c, properties, ...fields } = template(params.template_id);
      // Project.add_node_from_template: a built-in template's compute is the client's choice.
      const computeId = builtin ? body.compute_id : compute_id ?? body.compute_id;
      if (!computes.has(computeId)) throw new HttpError(404, `Compute ID ${computeId} doesn't exist`);
      const nodeName = body.name ?? String(default_name_format ?? '{name}-{0}').replace('{name}', name);
      // Node attributes stay out of the properties; base_script_file is sent once, as the startup script (Node._node_data).
      const { symbol, console_type: _ct, console_auto_start: _ca, ...others } = fields;
      const { base_script_file: script, ...kept } = { ...properties, ...Object.fromEntries(Object.entries(others).filter(([, v]) => v !== null && v !== '')) } as Json;
      const created = createNode(params.project_id, { name: nodeName, node_type: template_type, compute_id: computeId, x: body.x, y: body.y, symbol, template_id, properties: kept });
      if (script && template_type === 'vpcs') files.set(created.node_id, new Map([['startup.vpc', `set pcname ${created.name}\n`]]));
      return { status: 201, body: created };
    }],

    ['GET', '/projects/{project_id}/snapshots', undefined, ({ params }) => ({
      status: 200, body: [...snapshots.get(project(params.project_id).project_id)!.values()].map((s) => s.json).sort((a, b) => a.created_at - b.created_at || a.name.localeCompare(b.name)),
    })],
    ['POST', '/projects/{project_id}/snapshots', SNAPSHOT_CREATE, ({ params, body }) => {
      const pid = project(params.project_id).project_id;
      const existing = snapshots.get(pid)!;
      if ([...existing.values()].some((s) => s.json.name === body.name)) throw new HttpError(409, `The snapshot name ${body.name} already exists`);
      assertStopped(pid);
      const json = { snapshot_id: randomUUID(), name: body.name, created_at: Math.floor(Date.now() / 1000), project_id: pid };
      existing.set(json.snapshot_id, { json, nodes: structuredClone([...nodesOf(pid).values()]), links: structuredClone([...linksOf(pid).values()]) });
      return { status: 201, body: json };
    }],
    ['DELETE', '/projects/{project_id}/snapshots/{snapshot_id}', undefined, ({ params }) => {
      snapshot(params.project_id, params.snapshot_id);
      snapshots.get(params.project_id)!.delete(params.snapshot_id);
      return { status: 204 };
    }],
    ['POST', '/projects/{project_id}/snapshots/{snapshot_id}/restore', undefined, ({ params }) => {
      const saved = snapshot(params.project_id, params.snapshot_id);
      copyTopology(params.project_id, saved);
      return { status: 201, body: project(params.project_id) };
    }],

    ['GET', '/projects/{project_id}/export', undefined, async ({ params }) => {
      const p = project(params.project_id);
      assertStopped(p.project_id);
      const { status: _s, path: _p, filename: _f, ...settings } = p;
      const topology = { ...settings, revision: 9, type: 'topology', version: FAKE_GNS3_VERSION,
        topology: { computes: [], drawings: [], links: [...linksOf(p.project_id).values()], nodes: [...nodesOf(p.project_id).values()] } };
      const bytes = await zipOf({ 'project.gns3': Buffer.from(JSON.stringify(topology)) });
      return { status: 200, data: { bytes, contentType: 'application/gns3project', headers: { 'Content-Disposition': `attachment; filename="${p.name}.gns3project"` } } };
    }],
    ['POST', '/projects/{project_id}/import', undefined, async ({ params, body, raw }) => {
      const file = await zipEntry(raw, 'project.gns3').catch(() => {
        throw new HttpError(409, 'Cannot import project, not a GNS3 project (invalid zip)');
      });
      if (!file) throw new HttpError(409, 'Cannot import project, project.gns3 file could not be found');
      let topology: Json;
      try {
        topology = JSON.parse(file.toString('utf8'));
      } catch {
        throw new HttpError(409, 'Cannot import project, the project.gns3 file is corrupted');
      }
      const created = addProject({ project_id: params.project_id, name: freeProjectName(body.name ?? topology.name) }, 'closed');
      copyTopology(created.project_id, { nodes: (topology.topology?.nodes ?? []).map((n: Json) => ({ ...n, compute_id: 'local' })), links: topology.topology?.links ?? [] });
      return { status: 201, body: created };
    }],
    ['POST', '/projects/{project_id}/duplicate', PROJECT_DUPLICATE, ({ params, body }) => {
      const source = project(params.project_id);
      const created = addProject({ name: freeProjectName(body.name) }, 'closed');
      copyTopology(created.project_id, { nodes: [...nodesOf(source.project_id).values()], links: [...linksOf(source.project_id).values()] });
      return { status: 201, body: created };
    }],
  ];

  const compiled = routes.map(([method, template, schema, handler]) => {
    const names: string[] = [];
    const pattern = template.replace(/\{(\w+)(:\.\+)?\}/g, (_, name: string, rest?: string) => {
      names.push(name);
      return rest ? '(.+)' : '([^/]+)';
    });
    return { method, template: `/v2${template}`, regex: new RegExp(`^/v2${pattern}$`), names, schema, handler };
  });

  const answer = (res: ServerResponse, status: number, route: string | undefined, body?: unknown, data?: Answer['data']) => {
    const headers: Record<string, string> = { Connection: 'close', Server: `Python/3.11 GNS3/${FAKE_GNS3_VERSION}` };
    if (route) headers['X-Route'] = route;
    if (data) {
      res.writeHead(status, { ...headers, ...data.headers, 'Content-Type': data.contentType }).end(data.bytes);
    } else if (body === undefined) {
      res.writeHead(status, { ...headers, 'Content-Type': 'application/octet-stream' }).end();
    } else {
      res.writeHead(status, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString('utf8');
    const matching = compiled.map((r) => ({ r, m: r.regex.exec(url.pathname) })).filter((x) => x.m);
    const found = matching.find((x) => x.r.method === req.method);
    if (!found) {
      // aiohttp's own answers, in plain text and without X-Route.
      const status = matching.length ? 405 : 404;
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end(status === 405 ? '405: Method Not Allowed' : '404: Not Found');
      requests.push({ method: req.method!, path: url.pathname, body: text, status });
      return status;
    }
    const { r, m } = found;
    let body: Json = {};
    const upload = req.method === 'POST' && (/\/files\//.test(r.template) || r.template.endsWith('/import'));
    try {
      // Raw uploads (import, files) are no JSON body: the route reads the bytes.
      if (text && !upload) body = JSON.parse(text);
    } catch (err) {
      answer(res, 400, r.template, { message: `Invalid JSON ${(err as Error).message}`, status: 400, path: r.template, request: { malformed_json: text }, method: req.method });
      return 400;
    }
    for (const [key, value] of url.searchParams) body[key] = value;
    requests.push({ method: req.method!, path: url.pathname, body: upload ? text : body, status: 0 });
    const recorded = requests[requests.length - 1];
    if (r.schema) {
      const error = schemaError(body, r.schema);
      if (error) {
        answer(res, 400, r.template, { message: `JSON schema error with API request '${url.pathname}${url.search}' and JSON data '${JSON.stringify(body)}': ${error}`,
          status: 400, path: r.template, request: body, method: req.method });
        return (recorded.status = 400);
      }
    }
    const params = Object.fromEntries(r.names.map((name, i) => [name, decodeURIComponent(m![i + 1])]));
    try {
      const out = await r.handler({ params, body, raw, route: r.template });
      answer(res, out.status, r.template, out.body, out.data);
      return (recorded.status = out.status);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      answer(res, status, r.template, { message: (err as Error).message, status });
      return (recorded.status = status);
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  computes.set('local', {
    capabilities: { node_types: NODE_TYPES, platform: 'linux', version: FAKE_GNS3_VERSION }, compute_id: 'local', connected: true,
    cpu_usage_percent: 1.0, host: '127.0.0.1', last_error: null, memory_usage_percent: 20.0, name: 'gns3-host', port, protocol: 'http', user: null,
  });
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sent: (method, path) => requests.filter((r) => r.method === method && path.test(r.path.replace(/^\/v2/, ''))),
    projects,
    close: async () => {
      server.closeAllConnections();
      await Promise.all([new Promise((resolve) => server.close(resolve)), new Promise((resolve) => consoles.close(resolve))]);
    },
  };
}
