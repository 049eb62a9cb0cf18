import { NAME_SCHEMA as NAME, schema } from './validation.js';
import { MAC_ADDRESS_PATTERN } from '../../util/mac-address.js';

/** The adapter schemas several node kinds share. */

/** A MAC address as GNS3 writes it (six colon-separated hex pairs). */
export const MAC_ADDRESS_SCHEMA = { type: 'string', minLength: 1, pattern: MAC_ADDRESS_PATTERN } as const;
const MAC = MAC_ADDRESS_SCHEMA;

/** GNS3 CUSTOM_ADAPTERS_ARRAY_SCHEMA. */
export const CUSTOM_ADAPTERS_SCHEMA = schema({
  type: 'array',
  items: {
    type: 'object',
    properties: {
      adapter_number: { type: 'integer' },
      port_name: { type: 'string', minLength: 1 },
      adapter_type: { type: 'string', minLength: 1 },
      mac_address: MAC,
    },
    required: ['adapter_number'],
    additionalProperties: false,
  },
});

/** A host interface port of a cloud or NAT node (GNS3 PORT_OBJECT_SCHEMA's ethernet and tap entries). */
export const HOST_PORT_SCHEMA = {
  type: 'object',
  properties: {
    name: NAME,
    port_number: { type: 'integer', minimum: 0 },
    type: { enum: ['ethernet', 'tap'] },
    interface: { type: 'string', minLength: 1 },
  },
  required: ['name', 'port_number', 'type', 'interface'],
  additionalProperties: false,
} as const;
