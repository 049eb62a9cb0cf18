import { NAME_SCHEMA as NAME, schema, UUID_SCHEMA as UUID, updateSchemaOf } from '../../schemas/validation.js';

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
