import { QEMU_DRIVES, type QemuDrive } from './schemas.js';
import { macPlus } from '../../../util/mac-address.js';
import { defaultBaseMac } from './qemu-command.js';

/** GNS3 custom_adapters entry: per-adapter port name, device model or MAC. */
export interface CustomAdapter {
  adapter_number: number;
  port_name?: string;
  adapter_type?: string;
  mac_address?: string;
}

/** The settable properties of a QEMU node, with GNS3's names. */
export interface QemuSettings {
  usage: string;
  linked_clone: boolean;
  qemu_path: string;
  platform: string;
  console_type: 'telnet' | 'vnc' | 'spice' | 'spice+agent' | 'none';
  hda_disk_image: string;
  hdb_disk_image: string;
  hdc_disk_image: string;
  hdd_disk_image: string;
  hda_disk_interface: string;
  hdb_disk_interface: string;
  hdc_disk_interface: string;
  hdd_disk_interface: string;
  cdrom_image: string;
  bios_image: string;
  initrd: string;
  kernel_image: string;
  kernel_command_line: string;
  boot_priority: string;
  ram: number;
  cpus: number;
  adapters: number;
  adapter_type: string;
  mac_address: string;
  legacy_networking: boolean;
  replicate_network_connection_state: boolean;
  tpm: boolean;
  uefi: boolean;
  create_config_disk: boolean;
  on_close: 'power_off' | 'shutdown_signal' | 'save_vm_state';
  cpu_throttling: number;
  process_priority: string;
  options: string;
  custom_adapters: CustomAdapter[];
  /** emuctl: the addresses (with prefix length) of the management NIC; null when the project has no management network. */
  mgmt_ipv4: string | null;
  mgmt_ipv6: string | null;
}

/** GNS3 2.2's defaults for a new QEMU VM. */
export function defaultSettings(nodeId: string): QemuSettings {
  return {
    usage: '', linked_clone: true, qemu_path: '', platform: 'x86_64', console_type: 'telnet',
    hda_disk_image: '', hdb_disk_image: '', hdc_disk_image: '', hdd_disk_image: '',
    hda_disk_interface: 'ide', hdb_disk_interface: 'ide', hdc_disk_interface: 'ide', hdd_disk_interface: 'ide',
    cdrom_image: '', bios_image: '', initrd: '', kernel_image: '', kernel_command_line: '',
    boot_priority: 'c', ram: 256, cpus: 1, adapters: 1, adapter_type: 'e1000', mac_address: defaultBaseMac(nodeId),
    legacy_networking: false, replicate_network_connection_state: true, tpm: false, uefi: false, create_config_disk: false,
    on_close: 'power_off', cpu_throttling: 0, process_priority: 'low', options: '', custom_adapters: [],
    mgmt_ipv4: null, mgmt_ipv6: null,
  };
}

const KEYS = Object.keys(defaultSettings('00000000')) as (keyof QemuSettings)[];

/** Applies the settable fields of a request body; null means "back to the default", as in GNS3. */
export function applySettings(current: QemuSettings, body: Record<string, unknown>, nodeId: string): QemuSettings {
  const next = { ...current } as Record<string, unknown>;
  const defaults = defaultSettings(nodeId) as unknown as Record<string, unknown>;
  for (const key of KEYS) {
    if (!(key in body)) continue;
    const value = body[key];
    next[key] = value === null || value === 'null' || (key === 'mac_address' && value === '') ? defaults[key] : value;
  }
  return next as unknown as QemuSettings;
}

/** Image-valued settings, whose files live in the images directory. */
export const IMAGE_SETTINGS = ['hda_disk_image', 'hdb_disk_image', 'hdc_disk_image', 'hdd_disk_image', 'cdrom_image', 'bios_image', 'initrd', 'kernel_image'] as const;
export type ImageSetting = (typeof IMAGE_SETTINGS)[number];

/** The md5sum field GNS3 reports for an image setting. */
export function md5Key(setting: ImageSetting): string {
  return `${setting}_md5sum`;
}

/** The drives that have an image; interface `none` (GNS3's template default) means `ide`, GNS3's fail-safe. */
export function drivesOf(s: QemuSettings): { drive: QemuDrive; image: string; interface: string }[] {
  return QEMU_DRIVES.filter((d) => s[`${d}_disk_image`]).map((d) => ({ drive: d, image: s[`${d}_disk_image`], interface: s[`${d}_disk_interface`] === 'none' ? 'ide' : s[`${d}_disk_interface`] }));
}

/** The management NIC's MAC: the one after the data adapters' (base MAC + the adapter count), so theirs are unchanged. */
export function managementMac(s: QemuSettings): string {
  return macPlus(s.mac_address, s.adapters).toLowerCase();
}

/** Device model and MAC of adapter N: custom_adapters first, else adapter_type and base MAC + N. */
export function adapterOf(s: QemuSettings, n: number): { type: string; mac: string } {
  const custom = s.custom_adapters.find((c) => c.adapter_number === n);
  return { type: custom?.adapter_type ?? s.adapter_type, mac: (custom?.mac_address ?? macPlus(s.mac_address, n)).toLowerCase() };
}
