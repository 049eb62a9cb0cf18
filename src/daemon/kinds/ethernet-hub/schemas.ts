import { NAME_SCHEMA as NAME, schema, UUID_SCHEMA as UUID, updateSchemaOf } from '../../schemas/validation.js';

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
