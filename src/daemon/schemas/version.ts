import { schema } from './validation.js';

/** GNS3 VERSION_SCHEMA (body of POST /v2/version). */
export const VERSION_SCHEMA = schema({
  type: 'object',
  properties: {
    version: { type: 'string' },
    local: { type: 'boolean' },
  },
  required: ['version'],
  additionalProperties: false,
});
