import { schema, UUID_SCHEMA, updateSchemaOf } from './validation.js';

const UUID = UUID_SCHEMA;
const NAME = { type: 'string', minLength: 1 } as const;

/** GNS3 ETHERNET_SWITCH_CREATE_SCHEMA. */
export const ETHERNET_SWITCH_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: NAME,
    node_id: UUID,
    console: { type: ['integer', 'null'] },
    console_type: { enum: ['telnet', 'none'] },
    ports_mapping: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: NAME,
          port_number: { type: 'integer', minimum: 0 },
          type: { enum: ['access', 'dot1q', 'qinq'] },
          vlan: { type: 'integer', minimum: 1, maximum: 4094 },
          ethertype: { enum: ['', '0x8100', '0x88A8', '0x88a8', '0x9100', '0x9200'] },
        },
        required: ['name', 'port_number', 'type'],
        additionalProperties: false,
      },
    },
    status: { enum: ['started', 'stopped', 'suspended'] },
  },
  required: ['name'],
  additionalProperties: false,
});
export const ETHERNET_SWITCH_UPDATE_SCHEMA = updateSchemaOf(ETHERNET_SWITCH_CREATE_SCHEMA);

/** GNS3 ETHERNET_HUB_CREATE_SCHEMA. */
export const ETHERNET_HUB_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: NAME,
    node_id: UUID,
    ports_mapping: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: NAME, port_number: { type: 'integer', minimum: 0 } },
        required: ['name', 'port_number'],
        additionalProperties: false,
      },
    },
    status: { enum: ['started', 'stopped', 'suspended'] },
  },
  required: ['name'],
  additionalProperties: false,
});
export const ETHERNET_HUB_UPDATE_SCHEMA = updateSchemaOf(ETHERNET_HUB_CREATE_SCHEMA);

/** GNS3 VPCS_CREATE_SCHEMA. */
export const VPCS_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: NAME,
    node_id: UUID,
    usage: { type: 'string' },
    console: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    console_type: { enum: ['telnet', 'none'] },
    startup_script: { type: ['string', 'null'] },
    startup_script_path: { type: ['string', 'null'] },
    mac_address: { type: 'string', pattern: '^00:50:79:66:68:[0-9a-fA-F]{2}$' },
  },
  required: ['name'],
  additionalProperties: false,
});
export const VPCS_UPDATE_SCHEMA = updateSchemaOf(VPCS_CREATE_SCHEMA);

/** GNS3 compute project create (PROJECT_CREATE_SCHEMA on the compute side). */
export const COMPUTE_PROJECT_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: { type: ['string', 'null'], minLength: 1 },
    project_id: UUID,
    path: { type: ['string', 'null'] },
    variables: { type: ['array', 'null'] },
  },
  additionalProperties: false,
});
export const COMPUTE_PROJECT_UPDATE_SCHEMA = schema({
  type: 'object',
  properties: { variables: { type: ['array', 'null'] } },
  additionalProperties: false,
});

/** Body of a compute node's duplicate: the node (already created) that receives the copy. */
export const COMPUTE_NODE_DUPLICATE_SCHEMA = schema({
  type: 'object',
  properties: { destination_node_id: UUID },
  required: ['destination_node_id'],
  additionalProperties: false,
});
