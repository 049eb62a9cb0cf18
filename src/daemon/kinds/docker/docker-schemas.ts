import { CUSTOM_ADAPTERS_SCHEMA } from '../qemu/schemas.js';
import { schema, UUID_SCHEMA, updateSchemaOf } from '../../schemas/validation.js';
import { ALL_CAPABILITIES } from './containment.js';

/** GNS3 2.2's docker console types; emuctl runs telnet and none (the others are refused at create, update and start). */
export const DOCKER_CONSOLE_TYPES = ['telnet', 'vnc', 'http', 'https', 'none'] as const;

/** GNS3 2.2 DOCKER_CREATE_SCHEMA, plus emuctl's `cap_add`, `privileged` and management addresses. */
export const DOCKER_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    node_id: UUID_SCHEMA,
    image: { type: 'string', minLength: 1 },
    console: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    console_type: { enum: DOCKER_CONSOLE_TYPES },
    console_resolution: { type: 'string', pattern: '^[0-9]+x[0-9]+$' },
    console_http_port: { type: 'integer', minimum: 1, maximum: 65535 },
    console_http_path: { type: 'string' },
    aux: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    aux_type: { enum: ['telnet', 'none'] },
    custom_adapters: CUSTOM_ADAPTERS_SCHEMA,
    usage: { type: 'string' },
    start_command: { type: ['string', 'null'] },
    environment: { type: ['string', 'null'] },
    adapters: { type: ['integer', 'null'], minimum: 0, maximum: 99 },
    extra_hosts: { type: ['string', 'null'] },
    extra_volumes: { type: ['array', 'null'], items: { type: 'string' } },
    container_id: { type: 'string' },
    // Any Linux capability is a valid name; which ones a node may have is containment.ts's answer (400 naming it).
    cap_add: { type: 'array', items: { enum: ALL_CAPABILITIES }, uniqueItems: true },
    privileged: { type: 'boolean' },
    // emuctl: the node's addresses on its project's management network (the controller assigns them).
    mgmt_ipv4: { type: ['string', 'null'], pattern: '^(\\d{1,3}\\.){3}\\d{1,3}(/\\d{1,2})?$' },
    mgmt_ipv6: { type: ['string', 'null'], pattern: '^[0-9A-Fa-f:]+(/\\d{1,3})?$' },
  },
  required: ['name', 'image'],
  additionalProperties: false,
});
export const DOCKER_UPDATE_SCHEMA = updateSchemaOf(DOCKER_CREATE_SCHEMA);

/** `POST .../docker/nodes/{node_id}/exec` (emuctl): a command as argv, run without a shell. */
export const DOCKER_EXEC_SCHEMA = schema({
  type: 'object',
  properties: {
    command: { type: 'array', items: { type: 'string' }, minItems: 1 },
    timeout: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  },
  required: ['command'],
  additionalProperties: false,
});
