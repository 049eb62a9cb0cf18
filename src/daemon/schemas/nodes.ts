import { schema, UUID_SCHEMA, updateSchemaOf } from './validation.js';

const UUID = UUID_SCHEMA;

/** GNS3 compute project create (PROJECT_CREATE_SCHEMA on the compute side). */
export const COMPUTE_PROJECT_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    name: { type: ['string', 'null'], minLength: 1 },
    project_id: UUID,
    path: { type: ['string', 'null'] },
    variables: { type: ['array', 'null'] },
  },
  additionalProperties: false,
});
export const COMPUTE_PROJECT_UPDATE_SCHEMA = schema({
  type: 'object',
  properties: { variables: { type: ['array', 'null'] } },
  additionalProperties: false,
});

/** Body of a compute node's duplicate: the node (already created) that receives the copy. */
export const COMPUTE_NODE_DUPLICATE_SCHEMA = schema({
  type: 'object',
  properties: { destination_node_id: UUID },
  required: ['destination_node_id'],
  additionalProperties: false,
});
