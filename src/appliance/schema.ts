/**
 * The `.gns3a` appliance file (GNS3 registry schema versions 4 to 8), parsed once into typed
 * values. Facts from the registry's published schemas (appliance_v4..v8.json): versions 4-7
 * carry one emulator section (`qemu`, `docker`, `iou` or `dynamips`) and `versions` naming
 * images by file name; version 8 carries `settings` (named sets of template properties, one
 * the default) that each version may name.
 */

/** The file is not an appliance emuctl can read (bad JSON, a required field missing or of the wrong type). */
export class ApplianceFormatError extends Error {}

export type Emulator = 'qemu' | 'docker' | 'iou' | 'dynamips';
export const EMULATORS: readonly Emulator[] = ['qemu', 'docker', 'iou', 'dynamips'];
export const CATEGORIES = ['router', 'multilayer_switch', 'switch', 'firewall', 'guest'] as const;
export type Category = (typeof CATEGORIES)[number];
export const KVM_MODES = ['require', 'allow', 'disable'] as const;
export type KvmMode = (typeof KVM_MODES)[number];

/** One image file an appliance names. */
export interface ApplianceImage {
  filename: string;
  version?: string;
  /** Lower-case hex MD5, when the file gives one. */
  md5sum?: string;
  filesize?: number;
  download_url?: string;
  direct_download_url?: string;
  compression?: string;
}

/** A named set of template properties (registry version 8's `settings`; one per file before). */
export interface ApplianceSettings {
  name: string;
  default: boolean;
  inherit: boolean;
  emulator: Emulator;
  properties: Record<string, unknown>;
}

/** One version of an appliance: its disk slots (hda_disk_image, cdrom_image, ...) and their file names. */
export interface ApplianceVersion {
  name: string;
  /** Slot → file name as the version writes it (may be `parent/name` for archives). */
  images: Record<string, string>;
  /** Registry 8: the settings set this version uses (by name). */
  settings?: string;
  idlepc?: string;
  category?: Category;
  symbol?: string;
  usage?: string;
}

/** An appliance file, parsed. `raw` is the file's JSON as read (what GET /v2/appliances lists). */
export interface ApplianceFile {
  registry_version: number;
  name: string;
  category: Category;
  status: 'stable' | 'experimental' | 'broken';
  symbol?: string;
  usage?: string;
  first_port_name?: string;
  port_name_format?: string;
  port_segment_size?: number;
  linked_clone?: boolean;
  custom_adapters?: unknown[];
  emulator: Emulator;
  settings: ApplianceSettings[];
  images: ApplianceImage[];
  versions: ApplianceVersion[];
  raw: Record<string, unknown>;
}

export const MIN_REGISTRY_VERSION = 4;
export const MAX_REGISTRY_VERSION = 8;

/** Disk slots a version may fill (the keys of `versions[].images`). */
export const IMAGE_SLOTS = ['kernel_image', 'initrd', 'image', 'bios_image', 'hda_disk_image', 'hdb_disk_image', 'hdc_disk_image', 'hdd_disk_image', 'cdrom_image'] as const;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(o: Json, key: string, where: string, required = false): string | undefined {
  const v = o[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || (required && v === '')) throw new ApplianceFormatError(`${where}${key} ${v === undefined ? 'is missing' : 'must be a non-empty string'}`);
  return v;
}

function int(o: Json, key: string, where: string): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new ApplianceFormatError(`${where}${key} must be a non-negative integer`);
  return v;
}

function oneOf<T extends string>(o: Json, key: string, allowed: readonly T[], where: string, required = false): T | undefined {
  const v = o[key];
  if (v === undefined && !required) return undefined;
  if (!allowed.includes(v as T)) throw new ApplianceFormatError(`${where}${key} must be one of ${allowed.join(', ')}${v === undefined ? ' (it is missing)' : `, not ${JSON.stringify(v)}`}`);
  return v as T;
}

/**
 * A file name an appliance gives: a plain relative name. `..` segments, absolute paths,
 * backslashes and NUL never reach an image path or a template.
 */
function fileName(v: unknown, where: string): string {
  if (typeof v !== 'string' || v === '') throw new ApplianceFormatError(`${where} must be a non-empty file name`);
  if (v.includes('\0') || v.includes('\\') || v.startsWith('/') || v.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw new ApplianceFormatError(`${where} ${JSON.stringify(v)} is not a plain file name`);
  }
  return v;
}

function parseImage(o: unknown, i: number): ApplianceImage {
  const where = `images[${i}].`;
  if (!isObject(o)) throw new ApplianceFormatError(`images[${i}] must be an object`);
  const image: ApplianceImage = { filename: fileName(o.filename, `${where}filename`) };
  image.version = str(o, 'version', where);
  // Registry 8 may give the md5 as `checksum` with `checksum_type: md5`.
  const md5 = o.md5sum ?? (o.checksum_type === undefined || o.checksum_type === 'md5' ? o.checksum : undefined);
  if (md5 !== undefined) {
    if (typeof md5 !== 'string' || !/^[0-9a-fA-F]{32}$/.test(md5)) throw new ApplianceFormatError(`${where}md5sum ${JSON.stringify(md5)} is not an MD5 (32 hex digits)`);
    image.md5sum = md5.toLowerCase();
  }
  image.filesize = int(o, 'filesize', where);
  image.download_url = str(o, 'download_url', where);
  image.direct_download_url = str(o, 'direct_download_url', where);
  image.compression = str(o, 'compression', where);
  return image;
}

function parseVersion(o: unknown, i: number, registryVersion: number): ApplianceVersion {
  const where = `versions[${i}].`;
  if (!isObject(o)) throw new ApplianceFormatError(`versions[${i}] must be an object`);
  const version: ApplianceVersion = { name: str(o, 'name', where, true)!, images: {} };
  if (o.images !== undefined) {
    if (!isObject(o.images)) throw new ApplianceFormatError(`${where}images must be an object of disk slot → file name`);
    for (const [slot, file] of Object.entries(o.images)) {
      if (!(IMAGE_SLOTS as readonly string[]).includes(slot)) throw new ApplianceFormatError(`${where}images.${slot} is not a disk slot (known: ${IMAGE_SLOTS.join(', ')})`);
      version.images[slot] = fileName(file, `${where}images.${slot}`);
    }
  }
  version.idlepc = str(o, 'idlepc', where);
  if (registryVersion >= 8) {
    version.settings = str(o, 'settings', where);
    version.category = oneOf(o, 'category', CATEGORIES, where);
    version.symbol = str(o, 'symbol', where);
    version.usage = str(o, 'usage', where);
  }
  return version;
}

function parseSettings(o: unknown, i: number): ApplianceSettings {
  const where = `settings[${i}].`;
  if (!isObject(o)) throw new ApplianceFormatError(`settings[${i}] must be an object`);
  if (!isObject(o.template_properties)) throw new ApplianceFormatError(`${where}template_properties must be an object`);
  if (o.default !== undefined && typeof o.default !== 'boolean') throw new ApplianceFormatError(`${where}default must be true or false`);
  if (o.inherit_default_properties !== undefined && typeof o.inherit_default_properties !== 'boolean') throw new ApplianceFormatError(`${where}inherit_default_properties must be true or false`);
  return {
    name: str(o, 'name', where) ?? `settings ${i}`,
    default: o.default === true,
    inherit: o.inherit_default_properties !== false,
    emulator: oneOf(o, 'template_type', EMULATORS, where, true)!,
    properties: { ...o.template_properties },
  };
}

/** The one emulator section of a registry 4-7 file, as a settings set. */
function legacySettings(o: Json): ApplianceSettings {
  const present = EMULATORS.filter((e) => o[e] !== undefined);
  if (present.length !== 1) throw new ApplianceFormatError(present.length ? `the file has several emulator sections (${present.join(', ')}); an appliance has one` : `the file has no emulator section (${EMULATORS.join(', ')})`);
  const emulator = present[0];
  const section = o[emulator];
  if (!isObject(section)) throw new ApplianceFormatError(`${emulator} must be an object`);
  if (emulator === 'qemu') {
    str(section, 'arch', 'qemu.', true);
    oneOf(section, 'kvm', KVM_MODES, 'qemu.', true);
  }
  if (emulator === 'docker') str(section, 'image', 'docker.', true);
  if (emulator === 'dynamips') str(section, 'platform', 'dynamips.', true);
  return { name: 'default', default: true, inherit: true, emulator, properties: { ...section } };
}

/** Parses an appliance file's text; ApplianceFormatError names what is wrong. */
export function parseAppliance(text: string): ApplianceFile {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (err) {
    throw new ApplianceFormatError(`not JSON: ${(err as Error).message}`);
  }
  if (!isObject(o)) throw new ApplianceFormatError('an appliance file holds one JSON object');
  const rv = o.registry_version;
  if (typeof rv !== 'number' || !Number.isInteger(rv)) throw new ApplianceFormatError('registry_version is missing or not an integer');
  if (rv < MIN_REGISTRY_VERSION || rv > MAX_REGISTRY_VERSION) throw new ApplianceFormatError(`registry_version ${rv} is not one emuctl reads (${MIN_REGISTRY_VERSION} to ${MAX_REGISTRY_VERSION})`);

  const settings = rv >= 8 ? arrayOf(o, 'settings', parseSettings, true) : [legacySettings(o)];
  if (!settings.length) throw new ApplianceFormatError('settings is empty');
  const emulators = new Set(settings.map((s) => s.emulator));
  if (emulators.size > 1) throw new ApplianceFormatError(`settings mix emulators (${[...emulators].join(', ')}); an appliance has one`);
  const images = arrayOf(o, 'images', parseImage);
  const versions = arrayOf(o, 'versions', (v, i) => parseVersion(v, i, rv));
  for (const version of versions) {
    if (version.settings !== undefined && !settings.some((s) => s.name === version.settings)) {
      throw new ApplianceFormatError(`version ${version.name} names settings '${version.settings}', which the file does not have`);
    }
  }
  const customAdapters = o.custom_adapters;
  if (customAdapters !== undefined && !Array.isArray(customAdapters)) throw new ApplianceFormatError('custom_adapters must be an array');
  if (o.linked_clone !== undefined && typeof o.linked_clone !== 'boolean') throw new ApplianceFormatError('linked_clone must be true or false');

  return {
    registry_version: rv,
    name: str(o, 'name', '', true)!,
    category: oneOf(o, 'category', CATEGORIES, '', true)!,
    status: oneOf(o, 'status', ['stable', 'experimental', 'broken'] as const, '', true)!,
    symbol: str(o, 'symbol', ''),
    usage: str(o, 'usage', ''),
    first_port_name: str(o, 'first_port_name', ''),
    port_name_format: str(o, 'port_name_format', ''),
    port_segment_size: int(o, 'port_segment_size', ''),
    linked_clone: o.linked_clone as boolean | undefined,
    custom_adapters: customAdapters as unknown[] | undefined,
    emulator: settings[0].emulator,
    settings,
    images,
    versions,
    raw: o,
  };
}

function arrayOf<T>(o: Json, key: string, parse: (item: unknown, i: number) => T, required = false): T[] {
  const v = o[key];
  if (v === undefined) {
    if (required) throw new ApplianceFormatError(`${key} is missing`);
    return [];
  }
  if (!Array.isArray(v)) throw new ApplianceFormatError(`${key} must be an array`);
  return v.map(parse);
}
