import type { TemplateSpec } from '../../controller/template-types.js';
import type { JsonSchema } from '../../schemas/validation.js';

/** GNS3's default switch ports: Ethernet0..7, access ports in VLAN 1 (the template's default and a create body's without ports_mapping). */
export const SWITCH_PORTS = Array.from({ length: 8 }, (_, i) => ({ ethertype: '' as const, name: `Ethernet${i}`, vlan: 1, type: 'access' as const, port_number: i }));

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

export const SWITCH_TEMPLATE: TemplateSpec = {
  category: 'switch',
  default_name_format: 'Switch{0}',
  symbol: ':/symbols/ethernet_switch.svg',
  fields: {
    ports_mapping: { type: 'array', items: SWITCH_PORT_ITEM, default: SWITCH_PORTS },
    console_type: { enum: ['telnet', 'none'], default: 'none' },
  },
  builtin: { name: 'Ethernet switch', fields: { console_type: 'none' } },
};
