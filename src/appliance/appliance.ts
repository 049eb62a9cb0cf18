import type { ApplianceFile, ApplianceImage, ApplianceSettings, KvmMode } from './schema.js';

/** One image a version needs, in one disk slot. */
export interface NeededImage {
  slot: string;
  /** The name the version writes (`parent/name` for a file inside an archive). */
  filename: string;
  image: ApplianceImage;
}

/** A version resolved against the file: its images, its settings, or why it is broken. */
export interface ResolvedVersion {
  name: string;
  images: NeededImage[];
  /** Why the file cannot give this version (an image it names is not in `images`). */
  broken?: string;
  /** The template properties this version installs with (settings merged as registry 8 says). */
  properties: Record<string, unknown>;
  idlepc?: string;
}

/**
 * Each version of the appliance with its images resolved as GNS3 does (a name `parent/name`
 * finds the image `parent`). A docker appliance has no versions: it gets one, named after
 * its image, needing no image file.
 */
export function resolveVersions(file: ApplianceFile): ResolvedVersion[] {
  if (file.emulator === 'docker' && !file.versions.length) {
    const properties = propertiesFor(file, undefined);
    return [{ name: String(properties.image), images: [], properties }];
  }
  return file.versions.map((version) => {
    const images: NeededImage[] = [];
    const missing: string[] = [];
    for (const [slot, filename] of Object.entries(version.images)) {
      const parent = filename.split('/')[0];
      const image = file.images.find((i) => i.filename === parent);
      if (image) images.push({ slot, filename, image });
      else missing.push(filename);
    }
    const resolved: ResolvedVersion = { name: version.name, images, properties: propertiesFor(file, version.settings), idlepc: version.idlepc };
    if (missing.length) resolved.broken = `version ${version.name} names ${missing.join(', ')}, which the file's images list does not hold`;
    return resolved;
  });
}

/** The template properties of a settings set; registry 8 merges the default set under an inheriting one. */
export function propertiesFor(file: ApplianceFile, settingsName: string | undefined): Record<string, unknown> {
  const fallback = file.settings.find((s) => s.default) ?? file.settings[0];
  const chosen: ApplianceSettings = (settingsName !== undefined && file.settings.find((s) => s.name === settingsName)) || fallback;
  if (chosen === fallback || !chosen.inherit) return { ...chosen.properties };
  return { ...fallback.properties, ...chosen.properties };
}

/** Where QEMU runs the appliance: `x86_64`, `i386`, ... (`arch` before registry 8, `platform` after). */
export function qemuArch(properties: Record<string, unknown>): string {
  return String(properties.arch ?? properties.platform ?? 'x86_64');
}

/**
 * Whether a QEMU appliance needs KVM. Before registry 8 the file says so (`kvm: require`);
 * registry 8 dropped the field, and there options that only KVM honours (`-cpu host`,
 * `-enable-kvm`, `accel=kvm`) say it: QEMU refuses them under TCG.
 */
export function kvmMode(file: ApplianceFile, properties: Record<string, unknown>): KvmMode {
  if (file.emulator !== 'qemu') return 'allow';
  if (typeof properties.kvm === 'string') return properties.kvm as KvmMode;
  const options = typeof properties.options === 'string' ? properties.options : '';
  return /(^|\s)-cpu\s+host\b|-enable-kvm\b|accel=kvm\b/.test(options) ? 'require' : 'allow';
}

/** The version named `name` (or the only one when there is one), or why there is none. */
export function pickVersion(versions: ResolvedVersion[], name: string | undefined): ResolvedVersion | string {
  if (name !== undefined) {
    const found = versions.find((v) => v.name === name);
    return found ?? `the appliance has no version ${JSON.stringify(name)} (versions: ${versions.map((v) => v.name).join(', ') || 'none'})`;
  }
  return versions.length === 1 ? versions[0] : '';
}
