import { CUSTOM_ADAPTERS_SCHEMA, MAC_ADDRESS_SCHEMA as MAC } from '../../schemas/adapters.js';
import { schema, updateSchemaOf, UUID_SCHEMA } from '../../schemas/validation.js';

const UUID = UUID_SCHEMA;
const IMAGE = { type: 'string' } as const;
const MD5 = { type: ['string', 'null'] } as const;

/** GNS3's QEMU platforms (the suffix of qemu-system-*). */
export const QEMU_PLATFORMS = ['aarch64', 'alpha', 'arm', 'cris', 'i386', 'lm32', 'm68k', 'microblaze', 'microblazeel', 'mips', 'mips64', 'mips64el', 'mipsel', 'moxie', 'or32', 'ppc', 'ppc64', 'ppcemb', 's390x', 'sh4', 'sh4eb', 'sparc', 'sparc64', 'tricore', 'unicore32', 'x86_64', 'xtensa', 'xtensaeb', ''];

/** GNS3's disk interfaces (hdX_disk_interface), as QEMU's `-drive if=`. */
export const QEMU_DISK_INTERFACES = ['ide', 'sata', 'nvme', 'scsi', 'sd', 'mtd', 'floppy', 'pflash', 'virtio', 'none'];

/** GNS3's QEMU network adapter models; an `adapter_type` is one of them, since it becomes a `-device` model. */
export const QEMU_NIC_MODELS = [
  'e1000', 'e1000-82540em', 'e1000-82544gc', 'e1000-82545em', 'e1000e', 'i82550', 'i82551', 'i82557a', 'i82557b', 'i82557c',
  'i82558a', 'i82558b', 'i82559a', 'i82559b', 'i82559c', 'i82559er', 'i82562', 'i82801', 'ne2k_pci', 'pcnet', 'rocker', 'rtl8139',
  'tulip', 'virtio', 'virtio-net-pci', 'virtio-net-device', 'vmxnet3', 'usb-net',
];

/** The disks of a QEMU VM, as GNS3 names them. */
export const QEMU_DRIVES = ['hda', 'hdb', 'hdc', 'hdd'] as const;
export type QemuDrive = (typeof QEMU_DRIVES)[number];

type DriveProperties = { [D in QemuDrive as `${D}_disk_image` | `${D}_disk_interface`]: typeof IMAGE } & { [D in QemuDrive as `${D}_disk_image_md5sum`]: typeof MD5 };
const drives = {} as DriveProperties;
for (const d of QEMU_DRIVES) Object.assign(drives, { [`${d}_disk_image`]: IMAGE, [`${d}_disk_interface`]: { type: 'string' }, [`${d}_disk_image_md5sum`]: MD5 });

/**
 * GNS3 QEMU_CREATE_SCHEMA. The read-only fields of the node JSON (status, node_directory,
 * command_line, project_id and emuctl's accel and monitor_status) are accepted and ignored, so
 * that a node JSON sent back (a controller restoring a topology) validates.
 */
export const QEMU_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    node_id: UUID,
    name: { type: 'string', minLength: 1 },
    usage: { type: 'string' },
    linked_clone: { type: 'boolean' },
    qemu_path: { type: ['string', 'null'], minLength: 1 },
    platform: { enum: [...QEMU_PLATFORMS, 'null', null] },
    console: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    console_type: { enum: ['telnet', 'vnc', 'spice', 'spice+agent', 'none'] },
    ...drives,
    cdrom_image: IMAGE,
    cdrom_image_md5sum: MD5,
    bios_image: IMAGE,
    bios_image_md5sum: MD5,
    boot_priority: { enum: ['c', 'd', 'n', 'cn', 'cd', 'dn', 'dc', 'nc', 'nd'] },
    ram: { type: ['integer', 'null'], minimum: 1 },
    cpus: { type: ['integer', 'null'], minimum: 1, maximum: 255 },
    adapters: { type: ['integer', 'null'], minimum: 0, maximum: 275 },
    adapter_type: { type: ['string', 'null'], minLength: 1 },
    mac_address: { ...MAC, type: ['string', 'null'] },
    initrd: IMAGE,
    initrd_md5sum: MD5,
    kernel_image: IMAGE,
    kernel_image_md5sum: MD5,
    kernel_command_line: { type: ['string', 'null'] },
    legacy_networking: { type: ['boolean', 'null'] },
    replicate_network_connection_state: { type: ['boolean', 'null'] },
    tpm: { type: ['boolean', 'null'] },
    uefi: { type: ['boolean', 'null'] },
    create_config_disk: { type: ['boolean', 'null'] },
    on_close: { enum: ['power_off', 'shutdown_signal', 'save_vm_state'] },
    cpu_throttling: { type: ['integer', 'null'], minimum: 0, maximum: 800 },
    process_priority: { enum: ['realtime', 'very high', 'high', 'normal', 'low', 'very low', 'null'] },
    options: { type: ['string', 'null'] },
    custom_adapters: CUSTOM_ADAPTERS_SCHEMA,
    // emuctl: the node's addresses on its project's management network (the controller assigns them).
    mgmt_ipv4: { type: ['string', 'null'], pattern: '^(\\d{1,3}\\.){3}\\d{1,3}(/\\d{1,2})?$' },
    mgmt_ipv6: { type: ['string', 'null'], pattern: '^[0-9A-Fa-f:]+(/\\d{1,3})?$' },
    status: { enum: ['started', 'stopped', 'suspended'] },
    project_id: UUID,
    node_directory: { type: ['string', 'null'] },
    command_line: { type: ['string', 'null'] },
    accel: { type: ['string', 'null'] },
    monitor_status: { type: ['string', 'null'] },
  },
  required: ['name'],
  additionalProperties: false,
});
export const QEMU_UPDATE_SCHEMA = updateSchemaOf(QEMU_CREATE_SCHEMA);

/** GNS3 QEMU_RESIZE_SCHEMA (resize_disk of a node). */
export const QEMU_RESIZE_SCHEMA = schema({
  type: 'object',
  properties: { drive_name: { enum: [...QEMU_DRIVES] }, extend: { type: 'integer', minimum: 1 } },
  required: ['drive_name', 'extend'],
  additionalProperties: false,
});

/** GNS3 QEMU_BINARY_FILTER_SCHEMA (GET /qemu/binaries). */
export const QEMU_BINARY_FILTER_SCHEMA = schema({
  type: 'object',
  properties: { archs: { type: 'array', items: { enum: QEMU_PLATFORMS } } },
  additionalProperties: false,
});

/** GNS3 QEMU_IMAGE_CREATE_SCHEMA (POST /qemu/img). */
export const QEMU_IMAGE_CREATE_SCHEMA = schema({
  type: 'object',
  properties: {
    qemu_img: { type: 'string' },
    path: { type: 'string', minLength: 1 },
    format: { enum: ['qcow2', 'qcow', 'vpc', 'vdi', 'vmdk', 'raw'] },
    size: { type: 'integer', minimum: 1 },
    preallocation: { enum: ['off', 'metadata', 'falloc', 'full'] },
    cluster_size: { type: 'integer' },
    refcount_bits: { type: 'integer' },
    lazy_refcounts: { enum: ['on', 'off'] },
    subformat: { enum: ['dynamic', 'fixed', 'streamOptimized', 'twoGbMaxExtentSparse', 'twoGbMaxExtentFlat', 'monolithicSparse', 'monolithicFlat'] },
    static: { enum: ['on', 'off'] },
    zeroed_grain: { enum: ['on', 'off'] },
    adapter_type: { enum: ['ide', 'lsilogic', 'buslogic', 'legacyESX'] },
  },
  required: ['qemu_img', 'path', 'format', 'size'],
  additionalProperties: false,
});

/** GNS3 QEMU_IMAGE_UPDATE_SCHEMA (PUT /qemu/img). */
export const QEMU_IMAGE_UPDATE_SCHEMA = schema({
  type: 'object',
  properties: { qemu_img: { type: 'string' }, path: { type: 'string', minLength: 1 }, extend: { type: 'integer', minimum: 1 } },
  required: ['qemu_img', 'path'],
  additionalProperties: false,
});
