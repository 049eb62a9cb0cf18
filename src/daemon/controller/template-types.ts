import { CUSTOM_ADAPTERS_SCHEMA, QEMU_DISK_INTERFACES, QEMU_NIC_MODELS, QEMU_PLATFORMS } from '../schemas/qemu.js';
import type { JsonSchema } from '../schemas/validation.js';
import { checkQemuOptions, relativeImageName } from '../compute/qemu/qemu-options.js';

/** A template field: its schema, and GNS3's default for templates that do not set it. */
export type TemplateField = JsonSchema & { default?: unknown };

/**
 * What templates of one node type look like (GNS3's <type>_template schema): the type's own fields
 * with their defaults, the defaults of the common fields, and the built-in template, if GNS3 2.2
 * has one. Each node type of the controller's registry (node-types.ts) carries one.
 */
export interface TemplateSpec {
  /** The type's own fields, with their defaults. */
  fields: Record<string, TemplateField>;
  /** Defaults of the common fields for this type. */
  category: 'router' | 'switch' | 'guest' | 'firewall';
  default_name_format: string;
  symbol: string;
  /** Rules beyond the schema, checked at create and update (InvalidError): what would reach a command line. */
  check?(template: Record<string, unknown>): void;
  /** The built-in template of this type (GNS3 2.2's name and fields); none for types without one. */
  builtin?: { name: string; properties?: Record<string, unknown>; fields?: Record<string, unknown> };
}

/** A template type: GNS3's template_type (also the node_type of the nodes it makes) and its spec. */
export type TemplateType = TemplateSpec & { type: string };

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

export const VPCS_TEMPLATE: TemplateSpec = {
  category: 'guest',
  default_name_format: 'PC{0}',
  symbol: ':/symbols/vpcs_guest.svg',
  fields: {
    base_script_file: { type: 'string', minLength: 1, default: 'vpcs_base_config.txt' },
    console_type: { enum: ['telnet', 'none'], default: 'telnet' },
    console_auto_start: { type: 'boolean', default: false },
  },
  builtin: { name: 'VPCS', properties: { base_script_file: 'vpcs_base_config.txt' } },
};

export const ETHERNET_SWITCH_TEMPLATE: TemplateSpec = {
  category: 'switch',
  default_name_format: 'Switch{0}',
  symbol: ':/symbols/ethernet_switch.svg',
  fields: {
    ports_mapping: { type: 'array', items: SWITCH_PORT_ITEM, default: SWITCH_PORTS },
    console_type: { enum: ['telnet', 'none'], default: 'none' },
  },
  builtin: { name: 'Ethernet switch', fields: { console_type: 'none' } },
};

export const ETHERNET_HUB_TEMPLATE: TemplateSpec = {
  category: 'switch',
  default_name_format: 'Hub{0}',
  symbol: ':/symbols/hub.svg',
  fields: { ports_mapping: { type: 'array', items: HUB_PORT_ITEM, default: HUB_PORTS } },
  builtin: { name: 'Ethernet hub' },
};

const DISK_INTERFACE = { enum: QEMU_DISK_INTERFACES, default: 'none' };
const text = (value = ''): TemplateField => ({ type: 'string', default: value });
const flag = (value: boolean): TemplateField => ({ type: 'boolean', default: value });

/** GNS3 2.2's qemu template (QEMU_TEMPLATE_PROPERTIES): users make their own; there is no built-in one. */
export const QEMU_TEMPLATE: TemplateSpec = {
  category: 'guest',
  default_name_format: '{name}-{0}',
  symbol: ':/symbols/qemu_guest.svg',
  fields: {
    qemu_path: text(),
    usage: text(),
    platform: { enum: QEMU_PLATFORMS, default: '' },
    linked_clone: flag(true),
    ram: { type: 'integer', default: 256 },
    cpus: { type: 'integer', minimum: 1, maximum: 255, default: 1 },
    adapters: { type: 'integer', minimum: 0, maximum: 275, default: 1 },
    adapter_type: { enum: QEMU_NIC_MODELS, default: 'e1000' },
    mac_address: { type: ['string', 'null'], pattern: '^(([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2})?$', default: '' },
    first_port_name: text(),
    port_name_format: text('Ethernet{0}'),
    port_segment_size: { type: 'integer', default: 0 },
    console_type: { enum: ['telnet', 'vnc', 'spice', 'spice+agent', 'none'], default: 'telnet' },
    console_auto_start: flag(false),
    boot_priority: { enum: ['c', 'd', 'n', 'cn', 'cd', 'dn', 'dc', 'nc', 'nd'], default: 'c' },
    hda_disk_image: text(),
    hda_disk_interface: DISK_INTERFACE,
    hdb_disk_image: text(),
    hdb_disk_interface: DISK_INTERFACE,
    hdc_disk_image: text(),
    hdc_disk_interface: DISK_INTERFACE,
    hdd_disk_image: text(),
    hdd_disk_interface: DISK_INTERFACE,
    cdrom_image: text(),
    initrd: text(),
    kernel_image: text(),
    bios_image: text(),
    kernel_command_line: text(),
    legacy_networking: flag(false),
    replicate_network_connection_state: flag(true),
    tpm: flag(false),
    uefi: flag(false),
    create_config_disk: flag(false),
    on_close: { enum: ['power_off', 'shutdown_signal', 'save_vm_state'], default: 'power_off' },
    cpu_throttling: { type: 'integer', minimum: 0, maximum: 800, default: 0 },
    process_priority: { enum: ['realtime', 'very high', 'high', 'normal', 'low', 'very low'], default: 'normal' },
    options: text(),
    custom_adapters: { ...CUSTOM_ADAPTERS_SCHEMA, default: [] },
  },
  // The controller cannot see a remote compute's images directory: image names in options must be relative names inside one.
  check: (template) => void checkQemuOptions(template.options as string, relativeImageName),
};
