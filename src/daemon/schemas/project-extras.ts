import { PROJECT_CREATE_SCHEMA } from './project.js';
import { schema, updateSchemaOf, UUID_SCHEMA } from './validation.js';

const UUID = UUID_SCHEMA;

/** GNS3 DRAWING_OBJECT_SCHEMA (create and update). */
export const DRAWING_SCHEMA = schema({
  type: 'object',
  properties: {
    drawing_id: UUID,
    project_id: UUID,
    x: { type: 'integer' },
    y: { type: 'integer' },
    z: { type: 'integer' },
    locked: { type: 'boolean' },
    rotation: { type: 'integer', minimum: -359, maximum: 360 },
    svg: { type: 'string' },
  },
  additionalProperties: false,
});

/** GNS3 SNAPSHOT_CREATE_SCHEMA. */
export const SNAPSHOT_CREATE_SCHEMA = schema({
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
  additionalProperties: false,
});

/** GNS3 PROJECT_LOAD_SCHEMA. */
export const PROJECT_LOAD_SCHEMA = schema({
  type: 'object',
  properties: { path: { type: 'string', minLength: 1 } },
  required: ['path'],
  additionalProperties: false,
});

/** GNS3 PROJECT_DUPLICATE_SCHEMA: a project create body, plus reset_mac_addresses; nothing required. */
export const PROJECT_DUPLICATE_SCHEMA = updateSchemaOf({
  ...PROJECT_CREATE_SCHEMA,
  properties: { ...PROJECT_CREATE_SCHEMA.properties, reset_mac_addresses: { type: 'boolean' } },
});

/** Query of `POST /v2/projects/{project_id}/import`: the new project's name and directory. */
export const PROJECT_IMPORT_SCHEMA = schema({
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 } },
  additionalProperties: false,
});

/** GNS3 NODE_DUPLICATE_SCHEMA (controller): where the copy goes. */
export const NODE_DUPLICATE_SCHEMA = schema({
  type: 'object',
  properties: { x: { type: 'integer' }, y: { type: 'integer' }, z: { type: 'integer' } },
  required: ['x', 'y'],
  additionalProperties: false,
});

/** GNS3 TEMPLATE_USAGE_SCHEMA: a node from a template. */
export const TEMPLATE_USAGE_SCHEMA = schema({
  type: 'object',
  properties: { x: { type: 'integer' }, y: { type: 'integer' }, name: { type: ['null', 'string'] }, compute_id: { type: ['null', 'string'] } },
  required: ['x', 'y'],
  additionalProperties: false,
});

/** Template bodies are checked against their type's schema by the template manager; here only an object is required. */
export const TEMPLATE_BODY_SCHEMA = schema({ type: 'object' });

/** GNS3 GNS3VM_SETTINGS_SCHEMA. */
export const GNS3VM_SETTINGS_SCHEMA = schema({
  type: 'object',
  properties: {
    enable: { type: 'boolean' },
    vmname: { type: 'string' },
    when_exit: { enum: ['stop', 'suspend', 'keep'] },
    headless: { type: 'boolean' },
    engine: { enum: ['vmware', 'virtualbox', null] },
    allocate_vcpus_ram: { type: 'boolean' },
    vcpus: { type: 'integer' },
    ram: { type: 'integer' },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
  },
  additionalProperties: false,
});

/** GNS3 IOU_LICENSE_SETTINGS_SCHEMA. */
export const IOU_LICENSE_SCHEMA = schema({
  type: 'object',
  properties: { iourc_content: { type: 'string' }, license_check: { type: 'boolean' } },
  additionalProperties: false,
});
