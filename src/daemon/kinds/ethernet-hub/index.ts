import { EthernetHubNode } from './ethernet-hub-node.js';
import { computeKind } from '../../compute/node-types.js';
import { mappedPorts } from '../../controller/node-ports.js';
import type { TemplateSpec } from '../../controller/template-types.js';
import type { JsonSchema } from '../../schemas/validation.js';
import type { NodeKind } from '../kind.js';
import { ETHERNET_HUB_CREATE_SCHEMA, ETHERNET_HUB_UPDATE_SCHEMA } from './schemas.js';

/** GNS3's default hub ports: Ethernet0..7. */
const HUB_PORTS = Array.from({ length: 8 }, (_, i) => ({ port_number: i, name: `Ethernet${i}` }));

const HUB_PORT_ITEM: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, port_number: { type: 'integer', minimum: 0 } },
  required: ['name', 'port_number'],
  additionalProperties: false,
};

const TEMPLATE: TemplateSpec = {
  category: 'switch',
  default_name_format: 'Hub{0}',
  symbol: ':/symbols/hub.svg',
  fields: { ports_mapping: { type: 'array', items: HUB_PORT_ITEM, default: HUB_PORTS } },
  builtin: { name: 'Ethernet hub' },
};

/** GNS3's Ethernet hub: every frame to every other port, in the dataplane. */
export const ETHERNET_HUB_KIND: NodeKind = {
  type: 'ethernet_hub',
  controller: { alwaysRunning: true, ports: mappedPorts, apiSymbol: TEMPLATE.symbol },
  template: TEMPLATE,
  compute: () => computeKind({
    createSchema: ETHERNET_HUB_CREATE_SCHEMA,
    updateSchema: ETHERNET_HUB_UPDATE_SCHEMA,
    create: (body, ctx) => EthernetHubNode.create(body, ctx),
    available: () => true,
  }),
};
