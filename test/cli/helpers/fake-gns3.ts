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
//   (vpcs, ethernet_switch, ethernet_hub): a refusal is the controller's 400 "Bad request URL
//   BODY". The controller keeps the properties a node was created with and sends them all again
//   with every change that reaches the compute (Node._node_data), so a VPCS created with a
//   startup_script property cannot be renamed (VPCS_UPDATE_SCHEMA has no startup_script);
// - the builtin VPCS, Ethernet switch and Ethernet hub templates (TemplateManager: ids are
//   uuid3(NAMESPACE_DNS, type)); a node made from one is created as POST …/nodes would, its
//   name the one given or the template's default_name_format; the VPCS template's
//   base_script_file becomes startup.vpc (`set pcname %h`);
// - node files (GET/POST …/nodes/{node_id}/files/{path}): raw bytes; a VPCS's startup.vpc is
//   written from startup_script when it is created (%h → its name) and its `set pcname` line
//   follows renames; a missing file is a 404;
// - no emuctl-only routes: an unknown route is aiohttp's plain-text "404: Not Found";
// - every answer has X-Route (the route template) and Connection: close.
// Nothing runs: node start/stop only changes the status; a VPCS console is a port of the
// fake's own that closes every connection at once (no telnet, and never another test's
// VPCS). Every request is recorded.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { COMPUTE_CREATE, COMPUTE_NODE_CREATE, COMPUTE_NODE_UPDATE, LINK, LINK_CAPTURE, NODE_CREATE, NODE_TYPES, NODE_UPDATE, PROJECT_CREATE, PROJECT_UPDATE, TEMPLATE_USAGE, schemaError, type Schema } from './gns3-schemas.js';

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

/** Python's uuid.uuid3(uuid.NAMESPACE_DNS, name). */
function uuid3Dns(name: string): string {
  const namespace = Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex');
  const hash = createHash('md5').update(Buffer.concat([namespace, Buffer.from(name)])).digest();
  hash[6] = (hash[6] & 0x0f) | 0x30;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** GNS3 2.2's builtin templates that this fake can run. */
const TEMPLATES = [
  { template_type: 'vpcs', name: 'VPCS', default_name_format: 'PC{0}', category: 'guest', symbol: ':/symbols/vpcs_guest.svg', properties: { base_script_file: 'vpcs_base_config.txt' } },
  { template_type: 'ethernet_switch', console_type: 'none', name: 'Ethernet switch', default_name_format: 'Switch{0}', category: 'switch', symbol: ':/symbols/ethernet_switch.svg' },
  { template_type: 'ethernet_hub', name: 'Ethernet hub', default_name_format: 'Hub{0}', category: 'switch', symbol: ':/symbols/hub.svg' },
].map((t) => ({ ...t, template_id: uuid3Dns(t.template_type), builtin: true, compute_id: null }));

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
  route: string;
  /** The request body as sent (file uploads). */
  text: string;
}

type Handler = (call: Call) => { status: number; body?: unknown; raw?: string };

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

  /** Project.update_allocated_node_name: spaces removed; a taken name gets the first free number. */
  const allocateName = (pid: string, wanted: string): string => {
    const taken = new Set([...nodesOf(pid).values()].map((n) => n.name));
    const base = wanted.replace(/ /g, '');
    if (!taken.has(base)) return base;
    const stem = base.replace(/[0-9]+$/, '');
    for (let i = 1; ; i++) if (!taken.has(`${stem}${i}`)) return `${stem}${i}`;
  };

  const ethernetPorts = (count: number) => Array.from({ length: count }, (_, i) => ({
    name: `Ethernet${i}`, short_name: `e${i}`, adapter_number: 0, port_number: i, link_type: 'ethernet', data_link_types: { Ethernet: 'DLT_EN10MB' },
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
      project_id: pid, properties, status: ['ethernet_switch', 'ethernet_hub'].includes(body.node_type) ? 'started' : 'stopped', symbol: ':/symbols/computer.svg', template_id: null, width: 65,
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
    ['DELETE', '/computes/{compute_id}', undefined, ({ params }) => {
      if (!computes.delete(params.compute_id)) throw new HttpError(404, `Compute ID ${params.compute_id} doesn't exist`);
      return { status: 204 };
    }],
    ['GET', '/projects', undefined, () => ({ status: 200, body: [...projects.values()] })],
    ['POST', '/projects', PROJECT_CREATE, ({ body }) => {
      if ([...projects.values()].some((p) => p.name === body.name)) throw new HttpError(409, `Project "${body.name}" already exists`);
      const id = body.project_id ?? randomUUID();
      const created: Project = {
        auto_close: true, auto_open: false, auto_start: false, drawing_grid_size: 25, filename: `${body.name}.gns3`, grid_size: 75,
        scene_height: 1000, scene_width: 2000, show_grid: false, show_interface_labels: false, show_layers: false, snap_to_grid: false,
        supplier: null, variables: null, zoom: 100, ...body, name: body.name, path: `/opt/gns3/projects/${id}`, project_id: id, status: 'opened',
      };
      projects.set(id, created);
      nodes.set(id, new Map());
      links.set(id, new Map());
      return { status: 201, body: created };
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
    ['GET', '/templates', undefined, () => ({ status: 200, body: TEMPLATES })],
    ['POST', '/projects/{project_id}/templates/{template_id}', TEMPLATE_USAGE, ({ params, body }) => {
      const template = TEMPLATES.find((t) => t.template_id === params.template_id);
      if (!template) throw new HttpError(404, `Template ${params.template_id} doesn't exist`);
      const { template_type, name, default_name_format, properties, template_id: _id, builtin: _b, compute_id: _c, category: _cat, symbol, ...rest } = template as typeof template & { properties?: Json; console_type?: string };
      const nodeName = body.name ?? default_name_format.replace('{name}', name).replace('{0}', '1');
      const { base_script_file: script, ...kept } = (properties ?? {}) as Json;
      const created = createNode(params.project_id, { name: nodeName, node_type: template_type, compute_id: body.compute_id, properties: kept, x: body.x, y: body.y, ...rest });
      created.symbol = symbol;
      if (script) files.set(created.node_id, new Map([['startup.vpc', `set pcname ${created.name}\n`]]));
      return { status: 201, body: created };
    }],
    ['GET', '/projects/{project_id}/nodes/{node_id}/files/{path:.+}', undefined, ({ params }) => {
      const n = node(params.project_id, params.node_id);
      if (params.path.startsWith('.') || params.path.includes('/../')) throw new HttpError(403, 'Forbidden');
      const content = files.get(n.node_id)?.get(params.path);
      if (content === undefined) throw new HttpError(404, `GET /projects/${params.project_id}/files/project-files/${n.node_type}/${n.node_id}/${params.path} not found`);
      return { status: 200, raw: content };
    }],
    ['POST', '/projects/{project_id}/nodes/{node_id}/files/{path:.+}', undefined, ({ params, text }) => {
      const n = node(params.project_id, params.node_id);
      if (params.path.startsWith('.') || params.path.includes('/../')) throw new HttpError(403, 'Forbidden');
      if (!files.has(n.node_id)) files.set(n.node_id, new Map());
      files.get(n.node_id)!.set(params.path, text);
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
  ];

  const compiled = routes.map(([method, template, schema, handler]) => {
    const names: string[] = [];
    const pattern = template.replace(/\{(\w+)(:\.\+)?\}/g, (_, name: string, rest?: string) => {
      names.push(name);
      return rest ? '(.+)' : '([^/]+)';
    });
    return { method, template: `/v2${template}`, regex: new RegExp(`^/v2${pattern}$`), names, schema, handler };
  });

  const answer = (res: ServerResponse, status: number, route: string | undefined, body?: unknown, raw?: string) => {
    const headers: Record<string, string> = { Connection: 'close', Server: `Python/3.11 GNS3/${FAKE_GNS3_VERSION}` };
    if (route) headers['X-Route'] = route;
    if (raw !== undefined) {
      res.writeHead(status, { ...headers, 'Content-Type': 'application/octet-stream' }).end(raw);
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
    const text = Buffer.concat(chunks).toString('utf8');
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
    const upload = req.method === 'POST' && /\/files\//.test(r.template);
    try {
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
      const out = r.handler({ params, body, route: r.template, text });
      answer(res, out.status, r.template, out.body, out.raw);
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
