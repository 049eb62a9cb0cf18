import { EthernetHubNode } from './ethernet-hub-node.js';
import { computeKind } from '../../compute/node-types.js';
import { mappedPorts } from '../../controller/node-ports.js';
import type { NodeKind } from '../kind.js';
import { HUB_TEMPLATE as TEMPLATE } from './template.js';
import { ETHERNET_HUB_CREATE_SCHEMA, ETHERNET_HUB_UPDATE_SCHEMA } from './schemas.js';

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
