import { qemuArch, type ResolvedVersion } from './appliance.js';
import type { ImageMatch } from './images.js';
import type { ApplianceFile, Category } from './schema.js';

/** The symbol GNS3's GUI gives a template whose appliance names none (or one it cannot get). */
export function categorySymbol(file: ApplianceFile, category: Category): string {
  if (category === 'guest') return file.emulator === 'docker' ? ':/symbols/docker_guest.svg' : ':/symbols/qemu_guest.svg';
  if (category === 'router') return ':/symbols/router.svg';
  if (category === 'switch') return ':/symbols/ethernet_switch.svg';
  if (category === 'multilayer_switch') return ':/symbols/multilayer_switch.svg';
  return ':/symbols/firewall.svg';
}

/**
 * The symbol the template names: the appliance's when the controller has it (`exists`), else
 * the category's, as GNS3's GUI falls back when it cannot download an appliance's own symbol.
 */
export function chooseSymbol(file: ApplianceFile, category: Category, wanted: string | undefined, exists: (id: string) => boolean): string {
  if (wanted && exists(wanted)) return wanted;
  return categorySymbol(file, category);
}

/** The symbols a controller has: which ids exist, and its theme's default symbol per role (`/v2/default_symbols`). */
export interface ControllerSymbols {
  exists: (id: string) => boolean;
  defaults: Readonly<Record<string, string>>;
}

/**
 * The symbol GNS3's controller lists an appliance with (appliance_manager.py): the file's own,
 * unless it has none or names one of GNS3's (`:/symbols/...`): then the theme's default for
 * its role (a guest is docker_guest or qemu_guest), when the theme has one.
 */
export function listedSymbol(file: ApplianceFile, defaults: Readonly<Record<string, string>>): string | undefined {
  if (file.symbol && !file.symbol.startsWith(':/symbols/')) return file.symbol;
  const role = file.category === 'guest' ? (file.emulator === 'docker' ? 'docker_guest' : file.emulator === 'qemu' ? 'qemu_guest' : 'guest') : file.category;
  return defaults[role] ?? file.symbol;
}

/** Properties of an appliance section that are not template fields (GNS3's GUI drops them). */
const NOT_TEMPLATE_FIELDS = ['kvm', 'path', 'arch'];

/**
 * The template GNS3's GUI (gns3/registry/appliance_to_template.py, 2.2) creates from an
 * appliance version whose images the compute holds: `images` maps each slot to the compute's
 * image path. Docker and QEMU only. The same as the GUI's when it installs from the
 * controller's appliance list.
 */
export function applianceTemplate(file: ApplianceFile, version: ResolvedVersion, images: ImageMatch[], computeId: string, symbols: ControllerSymbols): Record<string, unknown> {
  const raw = file.raw;
  const versionEntry = file.versions.find((v) => v.name === version.name);
  const category: Category = versionEntry?.category ?? file.category;
  const usage = versionEntry?.usage ?? file.usage;
  const template: Record<string, unknown> = {
    compute_id: computeId,
    name: file.emulator === 'docker' && !file.versions.length ? file.name : `${file.name} ${version.name}`,
  };
  if (usage !== undefined) template.usage = usage;
  template.category = category === 'multilayer_switch' ? 'switch' : category;
  // The GUI installs from the controller's listing, so the symbol is the listed one.
  template.symbol = chooseSymbol(file, category, versionEntry?.symbol ?? listedSymbol(file, symbols.defaults), symbols.exists);
  const props = { ...version.properties };
  // Registry 8 sets may carry the template's own name, category, usage and symbol: the version's answer above wins.
  for (const key of ['name', 'category', 'usage', 'symbol']) delete props[key];

  if (file.emulator === 'qemu') {
    template.template_type = 'qemu';
    Object.assign(template, props);
    for (const key of NOT_TEMPLATE_FIELDS) delete template[key];
    let options = typeof props.options === 'string' ? props.options : '';
    if (props.kvm === 'disable' && !options.includes('-machine accel=tcg')) options += ' -machine accel=tcg';
    template.options = options.trim();
    for (const match of images) if (match.state === 'present') template[match.need.slot] = match.path;
    template.qemu_path = typeof props.path === 'string' ? props.path : `qemu-system-${qemuArch(props)}`;
    for (const key of ['first_port_name', 'port_name_format', 'port_segment_size', 'custom_adapters', 'linked_clone']) {
      if (raw[key] !== undefined) template[key] = raw[key];
    }
  } else if (file.emulator === 'docker') {
    template.template_type = 'docker';
    Object.assign(template, props);
    if (raw.custom_adapters !== undefined) template.custom_adapters = raw.custom_adapters;
  } else {
    throw new Error(`${file.emulator} appliances have no emuctl template`);
  }
  return template;
}
