import { checkQemuOptions, relativeImageName } from './qemu-options.js';
import type { TemplateField, TemplateSpec } from '../../controller/template-types.js';
import { CUSTOM_ADAPTERS_SCHEMA } from '../../schemas/adapters.js';
import { QEMU_DISK_INTERFACES, QEMU_NIC_MODELS, QEMU_PLATFORMS } from './schemas.js';

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
