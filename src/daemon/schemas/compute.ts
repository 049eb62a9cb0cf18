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
    // emuctl's own (GNS3 has none): how an https compute's certificate is trusted, instead of the system CAs.
    ca_cert: { type: ['string', 'null'], minLength: 1, maxLength: 1024 * 1024 },
    fingerprint: { type: ['string', 'null'], pattern: '^\\s*(?:[Ss][Hh][Aa]-?256:?\\s*)?(?:[0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}\\s*$' },
  },
  required: ['host', 'port'],
  additionalProperties: false,
});
export const COMPUTE_UPDATE_SCHEMA = updateSchemaOf(COMPUTE_CREATE_SCHEMA);
