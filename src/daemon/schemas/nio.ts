import { schema } from './validation.js';
import { DATA_LINK_TYPES } from '../../util/data-link-types.js';

const PORT = { type: 'integer', minimum: 1, maximum: 65535 } as const;
const FILTERS = { type: 'object', additionalProperties: { type: 'array' } } as const;

/** GNS3 NIO types; nio_udp, nio_null, nio_tap and nio_ethernet are implemented on this compute. */
export const NIO_TYPES = ['nio_udp', 'nio_null', 'nio_ethernet', 'nio_generic_ethernet', 'nio_linux_ethernet', 'nio_tap', 'nio_unix', 'nio_vde', 'nio_nat', 'nio_vmnet'];

/** First pass: the NIO type must be known (then the type's own schema applies). */
export const NIO_TYPE_SCHEMA = schema({
  type: 'object',
  properties: { type: { enum: NIO_TYPES } },
  required: ['type'],
});

/** GNS3 NIO_UDP schema. */
export const NIO_UDP_SCHEMA = schema({
  type: 'object',
  properties: {
    type: { enum: ['nio_udp'] },
    lport: PORT,
    rhost: { type: 'string', minLength: 1 },
    rport: PORT,
    suspend: { type: 'boolean' },
    filters: FILTERS,
  },
  required: ['type', 'lport', 'rhost', 'rport'],
  additionalProperties: false,
});

/** GNS3 NIO_NULL schema. */
export const NIO_NULL_SCHEMA = schema({
  type: 'object',
  properties: { type: { enum: ['nio_null'] }, suspend: { type: 'boolean' }, filters: FILTERS },
  required: ['type'],
  additionalProperties: false,
});

const IFNAME = { type: 'string', minLength: 1, maxLength: 15 } as const;

/** GNS3 NIO_TAP schema: the port exchanges frames with a host TAP (created when missing, gone with the NIO when emuctl made it). */
export const NIO_TAP_SCHEMA = schema({
  type: 'object',
  properties: { type: { enum: ['nio_tap'] }, tap_device: IFNAME, suspend: { type: 'boolean' }, filters: FILTERS },
  required: ['type', 'tap_device'],
  additionalProperties: false,
});

/** GNS3 NIO_ETHERNET schema: the port exchanges frames with an existing host interface (AF_PACKET). */
export const NIO_ETHERNET_SCHEMA = schema({
  type: 'object',
  properties: { type: { enum: ['nio_ethernet'] }, ethernet_device: IFNAME, suspend: { type: 'boolean' }, filters: FILTERS },
  required: ['type', 'ethernet_device'],
  additionalProperties: false,
});

/** Body of a port's start_capture on the compute (GNS3 NODE_CAPTURE_SCHEMA). */
export const NODE_CAPTURE_SCHEMA = schema({
  type: 'object',
  properties: {
    capture_file_name: { type: 'string', minLength: 1 },
    data_link_type: { enum: DATA_LINK_TYPES },
  },
  required: ['capture_file_name'],
  additionalProperties: false,
});
