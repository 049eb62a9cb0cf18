import type { TemplateSpec } from '../../controller/template-types.js';
import type { JsonSchema } from '../../schemas/validation.js';

/** GNS3's default hub ports: Ethernet0..7 (the template's default and a create body's without ports_mapping). */
export const HUB_PORTS = Array.from({ length: 8 }, (_, i) => ({ port_number: i, name: `Ethernet${i}` }));

const HUB_PORT_ITEM: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, port_number: { type: 'integer', minimum: 0 } },
  required: ['name', 'port_number'],
  additionalProperties: false,
};

export const HUB_TEMPLATE: TemplateSpec = {
  category: 'switch',
  default_name_format: 'Hub{0}',
  symbol: ':/symbols/hub.svg',
  fields: { ports_mapping: { type: 'array', items: HUB_PORT_ITEM, default: HUB_PORTS } },
  builtin: { name: 'Ethernet hub' },
};
