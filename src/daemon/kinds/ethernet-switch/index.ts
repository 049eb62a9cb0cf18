import { EthernetSwitchNode } from './ethernet-switch-node.js';
import { computeKind } from '../../compute/node-types.js';
import { mappedPorts } from '../../controller/node-ports.js';
import type { TemplateSpec } from '../../controller/template-types.js';
import type { JsonSchema } from '../../schemas/validation.js';
import type { NodeKind } from '../kind.js';
import { ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_SWITCH_UPDATE_SCHEMA } from './schemas.js';

/** GNS3's default switch and hub ports: Ethernet0..7 (a switch's in access VLAN 1). */
const SWITCH_PORTS = Array.from({ length: 8 }, (_, i) => ({ ethertype: '', name: `Ethernet${i}`, vlan: 1, type: 'access', port_number: i }));

const SWITCH_PORT_ITEM: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    port_number: { type: 'integer', minimum: 0 },
    type: { enum: ['access', 'dot1q', 'qinq'] },
    vlan: { type: 'integer', minimum: 1 },
    ethertype: { enum: ['', '0x8100', '0x88A8', '0x9100', '0x9200'] },
  },
  required: ['name', 'port_number', 'type'],
  additionalProperties: false,
};

const TEMPLATE: TemplateSpec = {
  category: 'switch',
  default_name_format: 'Switch{0}',
  symbol: ':/symbols/ethernet_switch.svg',
  fields: {
    ports_mapping: { type: 'array', items: SWITCH_PORT_ITEM, default: SWITCH_PORTS },
    console_type: { enum: ['telnet', 'none'], default: 'none' },
  },
  builtin: { name: 'Ethernet switch', fields: { console_type: 'none' } },
};

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
