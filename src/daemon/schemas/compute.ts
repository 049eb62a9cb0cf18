import { schema, updateSchemaOf } from './validation.js';

/** GNS3 COMPUTE_CREATE_SCHEMA. */
export const COMPUTE_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    compute_id: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' },
    name: { type: 'string', minLength: 1 },
    protocol: { enum: ['http', 'https'] },
    host: { type: 'string', minLength: 1 },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    user: { type: ['string', 'null'] },
    password: { type: ['string', 'null'] },
  },
  required: ['host', 'port'],
  additionalProperties: false,
});
export const COMPUTE_UPDATE_SCHEMA = updateSchemaOf(COMPUTE_CREATE_SCHEMA);
