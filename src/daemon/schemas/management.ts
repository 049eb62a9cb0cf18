import { schema } from './validation.js';

const IFNAME = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,14}$' } as const;

/** `PUT /v2/projects/{project_id}/management` (emuctl): the subnets (`auto`: a free one from the range), the interface name in the nodes, and whether they get a route out (`nat`). */
export const MANAGEMENT_PUT_SCHEMA = schema({
  type: 'object',
  properties: {
    ipv4: { type: 'string', minLength: 1, maxLength: 64 },
    ipv6: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { const: false }] },
    interface: IFNAME,
    // emuctl: a route out for the nodes (IPv4, masqueraded); off by default.
    nat: { type: 'boolean' },
  },
  additionalProperties: false,
});

const SIDE = {
  type: 'object',
  properties: { subnet: { type: 'string', minLength: 1, maxLength: 64 }, gateway: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['subnet', 'gateway'],
  additionalProperties: false,
} as const;

/** `PUT /v2/compute/projects/{project_id}/management` (emuctl): the network the controller chose, as its API shows it. */
export const MANAGEMENT_NETWORK_SCHEMA = schema({
  type: 'object',
  properties: { ipv4: SIDE, ipv6: { anyOf: [SIDE, { type: 'null' }] }, interface: IFNAME, nat: { type: 'boolean' } },
  required: ['ipv4', 'ipv6', 'interface'],
  additionalProperties: false,
});
