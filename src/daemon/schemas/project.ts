import { schema, UUID_SCHEMA, updateSchemaOf } from './validation.js';

/** GNS3's VARIABLES_OBJECT_SCHEMA, with items required to be objects (GNS3 lets any value through). */
const VARIABLES_SCHEMA = {
  type: ['array', 'null'],
  items: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, value: { type: 'string' } }, required: ['name'] },
} as const;

/** GNS3 PROJECT_CREATE_SCHEMA. */
export const PROJECT_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    project_id: UUID_SCHEMA,
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
    variables: VARIABLES_SCHEMA,
  },
  additionalProperties: false,
  required: ['name'],
});

/** GNS3 PROJECT_UPDATE_SCHEMA. */
export const PROJECT_UPDATE_SCHEMA = updateSchemaOf(PROJECT_CREATE_SCHEMA);

/** Body of open/close: GNS3 accepts an empty object. */
export const EMPTY_SCHEMA = schema({ type: 'object', additionalProperties: true });

