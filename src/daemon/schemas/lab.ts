import { schema, UUID_SCHEMA, updateSchemaOf } from './validation.js';
import { DATA_LINK_TYPES } from '../../util/data-link-types.js';

const UUID = UUID_SCHEMA;

/** GNS3 NODE_CREATE_SCHEMA (the fields the GUI and gns3fy send; compute_id defaults to local). */
export const NODE_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    node_type: { type: 'string', minLength: 1 },
    compute_id: { type: 'string', minLength: 1 },
    node_id: UUID,
    project_id: UUID,
    template_id: { type: ['string', 'null'] },
    console: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    console_type: { enum: ['telnet', 'vnc', 'http', 'https', 'spice', 'spice+agent', 'none', null] },
    console_auto_start: { type: 'boolean' },
    properties: { type: 'object' },
    label: { type: ['object', 'null'] },
    symbol: { type: ['string', 'null'] },
    x: { type: 'integer' },
    y: { type: 'integer' },
    z: { type: 'integer' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    locked: { type: 'boolean' },
    port_name_format: { type: 'string' },
    port_segment_size: { type: 'integer' },
    first_port_name: { type: ['string', 'null'] },
    custom_adapters: { type: 'array' },
    node_directory: { type: ['string', 'null'] },
    command_line: { type: ['string', 'null'] },
    status: { enum: ['started', 'stopped', 'suspended'] },
    ports: { type: 'array' },
    console_host: { type: 'string' },
  },
  required: ['name', 'node_type'],
  additionalProperties: false,
});
export const NODE_UPDATE_SCHEMA = updateSchemaOf(NODE_CREATE_SCHEMA);

/** GNS3 LABEL_OBJECT_SCHEMA, as a link end's label; null (not in GNS3's schema) stands for "the default one". */
const LINK_LABEL = {
  type: ['object', 'null'],
  properties: {
    text: { type: 'string' },
    style: { type: ['string', 'null'] },
    x: { type: ['integer', 'null'] },
    y: { type: 'integer' },
    rotation: { type: 'integer', minimum: -359, maximum: 360 },
  },
  required: ['text'],
  additionalProperties: false,
} as const;

const LINK_END = {
  type: 'object',
  properties: {
    node_id: UUID,
    adapter_number: { type: 'integer', minimum: 0 },
    port_number: { type: 'integer', minimum: 0 },
    label: LINK_LABEL,
  },
  required: ['node_id', 'adapter_number', 'port_number'],
  additionalProperties: false,
} as const;

/** GNS3 LINK_OBJECT_SCHEMA (read-only fields are accepted and ignored, as GNS3 does). */
export const LINK_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    link_id: UUID,
    project_id: UUID,
    nodes: { type: 'array', items: LINK_END, minItems: 0, maxItems: 2 },
    filters: { type: 'object', additionalProperties: { type: 'array' } },
    suspend: { type: 'boolean' },
    link_style: { type: 'object' },
    link_type: { enum: ['ethernet', 'serial'] },
    capturing: { type: 'boolean' },
    capture_file_name: { type: ['string', 'null'] },
    capture_file_path: { type: ['string', 'null'] },
    capture_compute_id: { type: ['string', 'null'] },
  },
  required: ['nodes'],
  additionalProperties: false,
});
export const LINK_UPDATE_SCHEMA = updateSchemaOf(LINK_CREATE_SCHEMA);

/** Body of a link's start_capture. */
export const LINK_CAPTURE_SCHEMA = schema({
  type: 'object',
  properties: {
    capture_file_name: { type: 'string', minLength: 1 },
    data_link_type: { enum: DATA_LINK_TYPES },
  },
  additionalProperties: false,
});
