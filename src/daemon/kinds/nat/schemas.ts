import { HOST_PORT_SCHEMA } from '../../schemas/adapters.js';
import { NAME_SCHEMA as NAME, schema, UUID_SCHEMA as UUID, updateSchemaOf } from '../../schemas/validation.js';

/** GNS3 NAT_CREATE_SCHEMA: ports_mapping is accepted and ignored, as GNS3 does (a NAT node has its one port). */
export const NAT_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: NAME,
    node_id: UUID,
    usage: { type: 'string' },
    status: { enum: ['started', 'stopped', 'suspended'] },
    ports_mapping: { type: 'array', items: HOST_PORT_SCHEMA },
  },
  required: ['name'],
  additionalProperties: false,
});
export const NAT_UPDATE_SCHEMA = updateSchemaOf(NAT_CREATE_SCHEMA);
