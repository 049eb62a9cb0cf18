// The request schemas of GNS3 2.2.42's controller, as the strict fake GNS3 server
// (fake-gns3.ts) applies them. Written from gns3server/schemas/{project,node,link,compute,
// template,snapshot,vpcs_template,ethernet_switch_template,ethernet_hub_template}.py
// (property names, types, enums, required, additionalProperties), with the error messages
// that python-jsonschema gives, which GNS3 puts in its 400 answers.

/** The subset of JSON Schema draft 4 these schemas use. */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  anyOf?: Schema[];
  /** A template field's default (GNS3 fills it in with its ValidatorWithDefaults). */
  default?: unknown;
}

const UUID: Schema = { type: 'string', minLength: 36, maxLength: 36, pattern: '^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$' };
const NULLABLE_STRING: Schema = { type: ['string', 'null'] };
const LABEL: Schema = { type: 'object' };

/** GNS3's node types (NODE_TYPE_SCHEMA). */
export const NODE_TYPES = ['cloud', 'nat', 'ethernet_hub', 'ethernet_switch', 'frame_relay_switch', 'atm_switch', 'docker',
  'dynamips', 'vpcs', 'traceng', 'virtualbox', 'vmware', 'iou', 'qemu'];

const PROJECT_FIELDS: Record<string, Schema> = {
  name: { type: ['string', 'null'], minLength: 1 },
  path: { type: ['string', 'null'], minLength: 1 },
  auto_close: { type: 'boolean' },
  auto_open: { type: 'boolean' },
  auto_start: { type: 'boolean' },
  scene_height: { type: 'integer' },
  scene_width: { type: 'integer' },
  zoom: { type: 'integer' },
  show_layers: { type: 'boolean' },
  snap_to_grid: { type: 'boolean' },
  show_grid: { type: 'boolean' },
  grid_size: { type: 'integer' },
  drawing_grid_size: { type: 'integer' },
  show_interface_labels: { type: 'boolean' },
  supplier: { type: ['object', 'null'] },
  variables: { type: ['array', 'null'] },
};

export const PROJECT_CREATE: Schema = {
  type: 'object',
  properties: { ...PROJECT_FIELDS, project_id: { ...UUID, type: ['string', 'null'] } },
  additionalProperties: false,
  required: ['name'],
};

export const PROJECT_UPDATE: Schema = { type: 'object', properties: PROJECT_FIELDS, additionalProperties: false };

const NODE_FIELDS: Record<string, Schema> = {
  compute_id: { type: 'string' },
  project_id: UUID,
  node_id: UUID,
  template_id: { ...UUID, type: ['null', 'string'] },
  node_type: { enum: NODE_TYPES },
  node_directory: NULLABLE_STRING,
  command_line: NULLABLE_STRING,
  name: { type: 'string', minLength: 1 },
  console: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
  console_host: { type: 'string', minLength: 1 },
  console_type: { enum: ['vnc', 'telnet', 'http', 'https', 'spice', 'spice+agent', 'none', null] },
  console_auto_start: { type: 'boolean' },
  properties: { type: 'object' },
  status: { enum: ['stopped', 'started', 'suspended'] },
  label: LABEL,
  symbol: { type: ['string', 'null'], minLength: 1 },
  width: { type: 'integer' },
  height: { type: 'integer' },
  x: { type: 'integer' },
  y: { type: 'integer' },
  z: { type: 'integer' },
  locked: { type: 'boolean' },
  port_name_format: { type: 'string' },
  port_segment_size: { type: 'integer', minimum: 0 },
  first_port_name: NULLABLE_STRING,
  custom_adapters: { type: 'array' },
  ports: { type: 'array' },
};

export const NODE_CREATE: Schema = { type: 'object', properties: NODE_FIELDS, additionalProperties: false, required: ['name', 'node_type', 'compute_id'] };
export const NODE_UPDATE: Schema = { type: 'object', properties: NODE_FIELDS, additionalProperties: false };

export const LINK: Schema = {
  type: 'object',
  properties: {
    link_id: UUID,
    project_id: UUID,
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { node_id: UUID, adapter_number: { type: 'integer' }, port_number: { type: 'integer' }, label: LABEL },
        required: ['node_id', 'adapter_number', 'port_number'],
        additionalProperties: false,
      },
    },
    suspend: { type: 'boolean' },
    link_style: { type: 'object' },
    // FILTER_OBJECT_SCHEMA: any object; GNS3 checks filter names nowhere in the controller.
    filters: { type: 'object' },
    capturing: { type: 'boolean' },
    capture_file_name: NULLABLE_STRING,
    capture_file_path: NULLABLE_STRING,
    capture_compute_id: NULLABLE_STRING,
    link_type: { enum: ['ethernet', 'serial'] },
  },
  additionalProperties: false,
};

export const LINK_CAPTURE: Schema = {
  type: 'object',
  properties: {
    data_link_type: { enum: ['DLT_ATM_RFC1483', 'DLT_EN10MB', 'DLT_FRELAY', 'DLT_C_HDLC', 'DLT_PPP_SERIAL'] },
    // Any string: GNS3 2.2 joins it to the captures directory as it is.
    capture_file_name: { type: 'string' },
  },
  additionalProperties: false,
};

export const COMPUTE_CREATE: Schema = {
  type: 'object',
  properties: {
    compute_id: { type: 'string' },
    name: { type: 'string' },
    protocol: { enum: ['http', 'https'] },
    host: { type: 'string' },
    port: { type: 'integer' },
    user: NULLABLE_STRING,
    password: NULLABLE_STRING,
  },
  additionalProperties: false,
  required: ['protocol', 'host', 'port'],
};

/** PROJECT_DUPLICATE_SCHEMA: PROJECT_CREATE_SCHEMA (so `name` is required) plus reset_mac_addresses. */
export const PROJECT_DUPLICATE: Schema = {
  ...PROJECT_CREATE,
  properties: { ...PROJECT_CREATE.properties, reset_mac_addresses: { type: 'boolean' } },
};

export const SNAPSHOT_CREATE: Schema = { type: 'object', properties: { name: { minLength: 1 } }, additionalProperties: false, required: ['name'] };

/** The template types GNS3 2.2 knows (BASE_TEMPLATE_PROPERTIES.template_type). */
export const TEMPLATE_TYPES = ['cloud', 'ethernet_hub', 'ethernet_switch', 'docker', 'dynamips', 'vpcs', 'traceng', 'virtualbox', 'vmware', 'iou', 'qemu'];

/** BASE_TEMPLATE_PROPERTIES. */
export const BASE_TEMPLATE_PROPERTIES: Record<string, Schema> = {
  template_id: UUID,
  template_type: { enum: TEMPLATE_TYPES },
  name: { type: 'string', minLength: 1 },
  compute_id: { type: ['null', 'string'] },
  default_name_format: { type: 'string', minLength: 1 },
  symbol: { type: 'string', minLength: 1 },
  category: { anyOf: [{ type: 'integer' }, { enum: ['router', 'switch', 'guest', 'firewall'] }] },
  builtin: { type: 'boolean' },
};

/** TEMPLATE_CREATE_SCHEMA: the base properties, more allowed (the type's schema checks them next). */
export const TEMPLATE_CREATE: Schema = { type: 'object', properties: BASE_TEMPLATE_PROPERTIES, required: ['name', 'template_type', 'compute_id'] };

/** TEMPLATE_USAGE_SCHEMA (POST /projects/{project_id}/templates/{template_id}). */
export const TEMPLATE_USAGE: Schema = {
  type: 'object',
  properties: { x: { type: 'integer' }, y: { type: 'integer' }, name: { type: ['null', 'string'] }, compute_id: { type: ['null', 'string'] } },
  additionalProperties: false,
  required: ['x', 'y'],
};

const ports = (n: number, extra: Record<string, unknown>) => Array.from({ length: n }, (_, i) => ({ ...extra, name: `Ethernet${i}`, port_number: i }));

/**
 * The <type>_TEMPLATE_OBJECT_SCHEMA of the types the fake models (each also has the base
 * properties, with these defaults, and no other property).
 */
export const TEMPLATE_TYPE_SCHEMAS: Record<string, { fields: Record<string, Schema>; category: string; default_name_format: string; symbol: string }> = {
  vpcs: {
    fields: {
      base_script_file: { type: 'string', minLength: 1, default: 'vpcs_base_config.txt' },
      console_type: { enum: ['telnet', 'none'], default: 'telnet' },
      console_auto_start: { type: 'boolean', default: false },
    },
    category: 'guest', default_name_format: 'PC{0}', symbol: ':/symbols/vpcs_guest.svg',
  },
  ethernet_switch: {
    fields: {
      ports_mapping: { type: 'array', default: ports(8, { ethertype: '', vlan: 1, type: 'access' }) },
      console_type: { enum: ['telnet', 'none'], default: 'none' },
    },
    category: 'switch', default_name_format: 'Switch{0}', symbol: ':/symbols/ethernet_switch.svg',
  },
  ethernet_hub: {
    fields: { ports_mapping: { type: 'array', default: ports(8, {}) } },
    category: 'switch', default_name_format: 'Hub{0}', symbol: ':/symbols/hub.svg',
  },
};

/** Python's repr of a JSON value, as jsonschema puts it in messages. */
function repr(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(repr).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value as object).map(([k, v]) => `${repr(k)}: ${repr(v)}`).join(', ')}}`;
  return String(value);
}

function typeOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/** The first jsonschema error of `value` against `schema`, in python-jsonschema's words; undefined when valid. */
export function schemaError(value: unknown, schema: Schema): string | undefined {
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!typeOf(value).some((t) => allowed.includes(t))) {
      return `${repr(value)} is not of type ${allowed.map((t) => `'${t}'`).join(', ')}`;
    }
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) return `${repr(value)} is not one of ${repr(schema.enum)}`;
  if (schema.anyOf && !schema.anyOf.some((sub) => schemaError(value, sub) === undefined)) return `${repr(value)} is not valid under any of the given schemas`;
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) return `${repr(value)} is too short`;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${repr(value)} is too long`;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return `${repr(value)} does not match ${repr(schema.pattern)}`;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${value} is less than the minimum of ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${value} is greater than the maximum of ${schema.maximum}`;
  }
  if (Array.isArray(value) && schema.items) {
    for (const item of value) {
      const error = schemaError(item, schema.items);
      if (error) return error;
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) return `${repr(key)} is a required property`;
    if (schema.additionalProperties === false && schema.properties) {
      const extra = Object.keys(object).filter((key) => !(key in schema.properties!));
      if (extra.length) return `Additional properties are not allowed (${extra.map(repr).join(', ')} ${extra.length > 1 ? 'were' : 'was'} unexpected)`;
    }
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      if (key in object) {
        const error = schemaError(object[key], sub);
        if (error) return error;
      }
    }
  }
  return undefined;
}

// The compute's own node schemas (gns3server/schemas/{vpcs,ethernet_switch,ethernet_hub}.py):
// the controller sends a node's name and properties to its compute, which checks them with these
// (GNS3 writes ports_mapping's items as a one-element list, a tuple in draft 4 that checks the
// first port only; the fake checks every port, as the switch then uses every one).
const COMPUTE_NODE_ID: Schema = UUID;
const SWITCH_PORT: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    port_number: { type: 'integer', minimum: 0 },
    type: { enum: ['access', 'dot1q', 'qinq'] },
    vlan: { type: 'integer', minimum: 1 },
    ethertype: { enum: ['', '0x8100', '0x88A8', '0x9100', '0x9200'] },
  },
  required: ['name', 'port_number', 'type'],
  additionalProperties: false,
};
const HUB_PORT: Schema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, port_number: { type: 'integer', minimum: 0 } },
  required: ['name', 'port_number'],
  additionalProperties: false,
};
const CONSOLE: Schema = { type: ['integer', 'null'], minimum: 1, maximum: 65535 };
const CONSOLE_TYPE: Schema = { enum: ['telnet', 'none'] };

/** VPCS_CREATE_SCHEMA, ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_HUB_CREATE_SCHEMA; QEMU_CREATE_SCHEMA below. */
export const COMPUTE_NODE_CREATE: Record<string, Schema> = {
  vpcs: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, node_id: COMPUTE_NODE_ID, console: CONSOLE, console_type: CONSOLE_TYPE, startup_script: NULLABLE_STRING },
    additionalProperties: false,
    required: ['name'],
  },
  ethernet_switch: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, console: CONSOLE, console_type: CONSOLE_TYPE, node_id: COMPUTE_NODE_ID, ports_mapping: { type: 'array', items: SWITCH_PORT } },
    additionalProperties: false,
    required: ['name'],
  },
  ethernet_hub: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, node_id: COMPUTE_NODE_ID, ports_mapping: { type: 'array', items: HUB_PORT } },
    additionalProperties: false,
    required: ['name'],
  },
};

/** QEMU_CREATE_SCHEMA's properties: the types of those a lab file sets, the others by name only. */
const QEMU_PROPERTIES: Record<string, Schema> = {
  ...Object.fromEntries([
    'bios_image', 'bios_image_md5sum', 'boot_priority', 'cdrom_image', 'cdrom_image_md5sum', 'cpu_throttling', 'create_config_disk', 'custom_adapters',
    'hda_disk_image_md5sum', 'hda_disk_interface', 'hdb_disk_image', 'hdb_disk_image_md5sum', 'hdb_disk_interface', 'hdc_disk_image', 'hdc_disk_image_md5sum',
    'hdc_disk_interface', 'hdd_disk_image', 'hdd_disk_image_md5sum', 'hdd_disk_interface', 'initrd_md5sum', 'kernel_image_md5sum', 'legacy_networking',
    'linked_clone', 'mac_address', 'on_close', 'options', 'platform', 'process_priority', 'qemu_path', 'replicate_network_connection_state', 'tpm', 'uefi', 'usage',
  ].map((key) => [key, {}])),
  name: { type: 'string', minLength: 1 },
  node_id: COMPUTE_NODE_ID,
  console: CONSOLE,
  console_type: { enum: ['telnet', 'vnc', 'spice', 'spice+agent', 'none'] },
  hda_disk_image: { type: 'string' },
  ram: { type: ['integer', 'null'] },
  adapters: { type: ['integer', 'null'], minimum: 0, maximum: 275 },
  cpus: { type: ['integer', 'null'], minimum: 1, maximum: 255 },
  kernel_image: { type: 'string' },
  initrd: { type: 'string' },
  kernel_command_line: { type: ['string', 'null'] },
  adapter_type: { type: ['string', 'null'], minLength: 1 },
};
COMPUTE_NODE_CREATE.qemu = { type: 'object', properties: QEMU_PROPERTIES, additionalProperties: false, required: ['name'] };

/** VPCS_UPDATE_SCHEMA (no startup_script: GNS3 2.2 changes a script through the node's files), and the others minus required. */
export const COMPUTE_NODE_UPDATE: Record<string, Schema> = {
  vpcs: {
    type: 'object',
    properties: { name: { type: ['string', 'null'], minLength: 1 }, console: CONSOLE, console_type: CONSOLE_TYPE },
    additionalProperties: false,
  },
  ethernet_switch: { ...COMPUTE_NODE_CREATE.ethernet_switch, required: undefined },
  ethernet_hub: { ...COMPUTE_NODE_CREATE.ethernet_hub, required: undefined },
  qemu: { ...COMPUTE_NODE_CREATE.qemu, required: undefined },
};
