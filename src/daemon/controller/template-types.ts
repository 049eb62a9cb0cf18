import type { JsonSchema } from '../schemas/validation.js';

/** A template field: its schema, and GNS3's default for templates that do not set it. */
export type TemplateField = JsonSchema & { default?: unknown };

/**
 * One kind of template: GNS3's template_type (also the node_type of the nodes it makes), its
 * fields and defaults, and the built-in template of that kind. One more node type is one more entry.
 */
export interface TemplateType {
  type: string;
  /** The type's own fields (GNS3's <type>_template schema), with their defaults. */
  fields: Record<string, TemplateField>;
  /** Defaults of the common fields for this type. */
  category: 'router' | 'switch' | 'guest' | 'firewall';
  default_name_format: string;
  symbol: string;
  /** The built-in template of this type (GNS3 2.2's name and fields); none for types without one. */
  builtin?: { name: string; properties?: Record<string, unknown>; fields?: Record<string, unknown> };
}

/** GNS3's default switch and hub ports: Ethernet0..7 (a switch's in access VLAN 1). */
const SWITCH_PORTS = Array.from({ length: 8 }, (_, i) => ({ ethertype: '', name: `Ethernet${i}`, vlan: 1, type: 'access', port_number: i }));
const HUB_PORTS = Array.from({ length: 8 }, (_, i) => ({ port_number: i, name: `Ethernet${i}` }));

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
const HUB_PORT_ITEM: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, port_number: { type: 'integer', minimum: 0 } },
  required: ['name', 'port_number'],
  additionalProperties: false,
};

/** The template types this controller knows (GNS3 2.2's vpcs, ethernet_switch and ethernet_hub). */
export const TEMPLATE_TYPES: TemplateType[] = [
  {
    type: 'vpcs',
    category: 'guest',
    default_name_format: 'PC{0}',
    symbol: ':/symbols/vpcs_guest.svg',
    fields: {
      base_script_file: { type: 'string', minLength: 1, default: 'vpcs_base_config.txt' },
      console_type: { enum: ['telnet', 'none'], default: 'telnet' },
      console_auto_start: { type: 'boolean', default: false },
    },
    builtin: { name: 'VPCS', properties: { base_script_file: 'vpcs_base_config.txt' } },
  },
  {
    type: 'ethernet_switch',
    category: 'switch',
    default_name_format: 'Switch{0}',
    symbol: ':/symbols/ethernet_switch.svg',
    fields: {
      ports_mapping: { type: 'array', items: SWITCH_PORT_ITEM, default: SWITCH_PORTS },
      console_type: { enum: ['telnet', 'none'], default: 'none' },
    },
    builtin: { name: 'Ethernet switch', fields: { console_type: 'none' } },
  },
  {
    type: 'ethernet_hub',
    category: 'switch',
    default_name_format: 'Hub{0}',
    symbol: ':/symbols/hub.svg',
    fields: { ports_mapping: { type: 'array', items: HUB_PORT_ITEM, default: HUB_PORTS } },
    builtin: { name: 'Ethernet hub' },
  },
];

/** The template type with that name, if this controller knows it. */
export function templateType(type: string): TemplateType | undefined {
  return TEMPLATE_TYPES.find((t) => t.type === type);
}

/** The symbol GNS3's built-in template gives nodes of a type (the computer for types without one). */
export function defaultSymbolOf(nodeType: string): string | undefined {
  return templateType(nodeType)?.symbol;
}
