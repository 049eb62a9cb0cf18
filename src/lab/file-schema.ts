// The JSON Schema of a lab file. `schemas/lab.schema.json` in the repository is this object
// (a unit test keeps them equal), for editors: `# yaml-language-server: $schema=…` at the top
// of a lab file makes them check and complete it.
import { LAB_TEST_SCHEMA } from './lab-tests/schema.js';
import { NODE_FIELD_SCHEMAS } from './node-fields.js';
import { GENERATED_LINK_ARRAY, GENERATED_LINK_PROPERTIES, GENERATED_NODE_PROPERTIES, GENERATED_TOP_PROPERTIES } from './generated/schema.js';

const NODE_NAME = '^[^\\s:,]+$';
const ENDPOINT = {
  type: 'string',
  pattern: '^[^\\s:,]+:[^\\s:,]+$',
  description: 'NODE:ADAPTER/PORT (PC1:0/0), NODE:PORT (SW1:3, adapter 0) or NODE:PORT-NAME (SW1:Ethernet3, SW1:e3)',
};
const PERCENT = { type: 'integer', minimum: 0, maximum: 100 };

const FILTERS = {
  type: 'object',
  description: "link filters (GNS3's, plus emuctl's rate and duplicate); 0 or absent means off",
  properties: {
    delay: {
      description: 'latency in ms, or [latency, jitter] in ms',
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, maxItems: 2 }],
    },
    packet_loss: { ...PERCENT, description: 'chance of dropping a frame, %' },
    corrupt: { ...PERCENT, description: 'chance of corrupting a frame, %' },
    frequency_drop: { type: 'integer', minimum: -1, description: 'drop every Nth frame (-1: all)' },
    bpf: { type: 'string', description: 'drop frames matching these tcpdump expressions, one per line' },
    rate: { type: 'integer', minimum: 0, description: 'rate limit in kbit/s (emuctl daemons only)' },
    duplicate: { ...PERCENT, description: 'chance of sending a frame twice, % (emuctl daemons only)' },
  },
  additionalProperties: false,
};

const NODE = {
  type: 'object',
  properties: {
    type: {
      enum: ['ethernet_switch', 'ethernet_hub', 'vpcs', 'qemu', 'cloud', 'nat', 'frame_relay_switch', 'atm_switch', 'docker',
        'dynamips', 'traceng', 'virtualbox', 'vmware', 'iou'],
      description: 'GNS3 node type (not with template)',
    },
    template: { type: 'string', minLength: 1, description: 'create the node from this template (name or id)' },
    compute: { type: 'string', minLength: 1, description: 'compute to run it on, by name or id (default: defaults.compute, else local)' },
    x: { type: 'integer', description: 'position on the GNS3 canvas' },
    y: { type: 'integer' },
    ...NODE_FIELD_SCHEMAS,
    properties: { type: 'object', description: 'other GNS3 node properties, sent as they are when the node is created' },
    ...GENERATED_NODE_PROPERTIES,
  },
  additionalProperties: false,
};

const LINK = {
  anyOf: [
    { type: 'array', items: ENDPOINT, minItems: 2, maxItems: 2, description: '[END, END]' },
    GENERATED_LINK_ARRAY,
    {
      type: 'object',
      properties: {
        endpoints: { type: 'array', items: ENDPOINT, minItems: 2, maxItems: 2 },
        filters: FILTERS,
        suspend: { type: 'boolean', description: 'the link drops everything' },
        capture: { type: 'boolean', description: 'capture its frames (as listing it in captures)' },
        ...GENERATED_LINK_PROPERTIES,
      },
      // One of endpoints (ports named), ends or lan (device nodes, generated/).
      oneOf: [{ required: ['endpoints'] }, { required: ['ends'] }, { required: ['lan'] }],
      additionalProperties: false,
    },
  ],
};
/** The lab file's JSON Schema (draft-07). */
export const LAB_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'emuctl lab file',
  description: 'A lab as code: `emuctl lab up FILE` makes a GNS3-compatible server match it.',
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 250, description: 'project name' },
    defaults: {
      type: 'object',
      properties: { compute: { type: 'string', minLength: 1, description: 'compute of nodes that name none' } },
      additionalProperties: false,
    },
    nodes: { type: 'object', propertyNames: { pattern: NODE_NAME }, additionalProperties: NODE },
    links: { type: 'array', items: LINK },
    captures: { type: 'array', items: { type: 'string', pattern: '^\\S+$', description: 'a link by its ends: END-END' } },
    tests: { type: 'array', items: LAB_TEST_SCHEMA, description: 'tests `emuctl lab test` runs, in this order' },
    ...GENERATED_TOP_PROPERTIES,
    mgmt: {
      type: 'object',
      description: 'a management network: every docker and qemu node gets an extra interface on a bridge the host reaches (emuctl daemons only)',
      properties: {
        ipv4: { type: 'string', pattern: '^(auto|(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2})$', description: 'IPv4 subnet (CIDR) or auto (default: a free one)' },
        ipv6: { anyOf: [{ type: 'string', pattern: '^(auto|[0-9A-Fa-f:]+/\\d{1,3})$' }, { const: false }], description: 'IPv6 subnet (CIDR), auto (default) or false for none' },
        interface: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,14}$', description: "the interface's name in each node (default mgmt0)" },
        ssh: { type: 'boolean', description: "install the lab's SSH key in each docker node (default true)" },
        nat: { type: 'boolean', description: 'a route out for the nodes: IPv4 masqueraded through the host (default false: isolated, no route out)' },
      },
      additionalProperties: false,
    },
  },
  required: ['name'],
  additionalProperties: false,
} as const;
