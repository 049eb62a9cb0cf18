import { NAME_SCHEMA as NAME, schema, UUID_SCHEMA as UUID, updateSchemaOf } from '../../schemas/validation.js';

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
