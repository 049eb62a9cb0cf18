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

/** `POST .../nodes/{node_id}/exec` (emuctl; the controller's and docker's compute route): a command as argv, run without a shell. */
export const EXEC_SCHEMA = schema({
  type: 'object',
  properties: {
    command: { type: 'array', items: { type: 'string' }, minItems: 1 },
    timeout: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  },
  required: ['command'],
  additionalProperties: false,
});
