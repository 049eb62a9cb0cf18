import { updateSchemaOf, type JsonSchema } from './validation.js';

const UUID_PATTERN = '^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$';

/** GNS3 PROJECT_CREATE_SCHEMA. */
export const PROJECT_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    project_id: { type: 'string', pattern: UUID_PATTERN },
    path: { type: ['string', 'null'], minLength: 1 },
    auto_close: { type: 'boolean' },
    auto_open: { type: 'boolean' },
    auto_start: { type: 'boolean' },
    scene_height: { type: 'integer' },
    scene_width: { type: 'integer' },
    zoom: { type: 'integer' },
    show_layers: { type: 'boolean' },
    snap_to_grid: { type: 'boolean' },
    show_grid: { type: 'boolean' },
    grid_size: { type: 'integer' },
    drawing_grid_size: { type: 'integer' },
    show_interface_labels: { type: 'boolean' },
    supplier: { type: ['object', 'null'] },
    variables: { type: ['array', 'null'] },
  },
  additionalProperties: false,
  required: ['name'],
};

/** GNS3 PROJECT_UPDATE_SCHEMA. */
export const PROJECT_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(PROJECT_CREATE_SCHEMA);

/** Body of open/close: GNS3 accepts an empty object. */
export const EMPTY_SCHEMA: JsonSchema = { type: 'object', additionalProperties: true };

/** GNS3 VERSION_SCHEMA: the body of `POST /v2/version`. */
export const VERSION_CHECK_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string' }, local: { type: 'boolean' } },
  required: ['version'],
  additionalProperties: false,
};
