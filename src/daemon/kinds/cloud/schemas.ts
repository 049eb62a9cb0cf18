import { HOST_PORT_SCHEMA } from '../../schemas/adapters.js';
import { NAME_SCHEMA as NAME, schema, UUID_SCHEMA as UUID, updateSchemaOf } from '../../schemas/validation.js';

/** GNS3 HOST_INTERFACE_SCHEMA (what the compute reports; a client may send it back). */
const HOST_INTERFACE_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, type: { enum: ['ethernet', 'tap'] }, special: { type: 'boolean' } },
  required: ['name', 'type', 'special'],
} as const;

/** GNS3 CLOUD_CREATE_SCHEMA (UDP ports are not among the ports emuctl's cloud bridges: a UDP link does that). */
export const CLOUD_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: NAME,
    node_id: UUID,
    usage: { type: 'string' },
    remote_console_host: { type: 'string' },
    remote_console_port: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    remote_console_type: { enum: ['telnet', 'vnc', 'spice', 'http', 'https', 'none'] },
    remote_console_http_path: { type: 'string' },
    ports_mapping: { type: 'array', items: HOST_PORT_SCHEMA },
    interfaces: { type: 'array', items: HOST_INTERFACE_SCHEMA },
    status: { enum: ['started', 'stopped', 'suspended'] },
  },
  required: ['name'],
  additionalProperties: false,
});
export const CLOUD_UPDATE_SCHEMA = updateSchemaOf(CLOUD_CREATE_SCHEMA);
