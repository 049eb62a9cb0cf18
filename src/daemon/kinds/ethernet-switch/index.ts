import { EthernetSwitchNode } from './ethernet-switch-node.js';
import { computeKind } from '../../compute/node-types.js';
import { mappedPorts } from '../../controller/node-ports.js';
import type { NodeKind } from '../kind.js';
import { SWITCH_TEMPLATE as TEMPLATE } from './template.js';
import { ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_SWITCH_UPDATE_SCHEMA } from './schemas.js';

/** GNS3's Ethernet switch: VLANs, access, dot1q and QinQ ports, in the dataplane. */
export const ETHERNET_SWITCH_KIND: NodeKind = {
  type: 'ethernet_switch',
  controller: { alwaysRunning: true, ports: mappedPorts, apiSymbol: TEMPLATE.symbol },
  template: TEMPLATE,
  compute: () => computeKind({
    createSchema: ETHERNET_SWITCH_CREATE_SCHEMA,
    updateSchema: ETHERNET_SWITCH_UPDATE_SCHEMA,
    create: (body, ctx) => EthernetSwitchNode.create(body, ctx),
    available: () => true,
  }),
};
