import { isAbsolute } from 'node:path';
import { InvalidError } from '../../errors.js';
import { QEMU_NIC_MODELS } from './schemas.js';
import { splitOptions } from './qemu-command.js';

/** One option of a QEMU command line as QEMU reads it: `-name value` (value undefined for a flag). */
export interface QemuOption {
  name: string;
  value?: string;
}

/** A QEMU sub-option list (`key=value,key=value`, a comma inside a value doubled) as an ordered list of pairs. */
export type SubOptions = { key: string; value: string }[];

/** What the user's `options` add to the command line once checked, and the image names among them. */
export interface CheckedOptions {
  /** The arguments to pass, each option under its one-dash name. */
  args: string[];
  /** Arguments (by index in `args`) that name an image: replaced by the image's checked path before QEMU runs. */
  images: { index: number; name: string; option: string }[];
}

/** `-device` models a lab may add: adapters, controllers, serial ports, input, video, watchdogs. None of them opens a host file by itself. */
const DEVICE_MODELS = new Set([
  ...QEMU_NIC_MODELS.filter((m) => m !== 'virtio'),
  'virtio-scsi-pci', 'lsi53c895a', 'megasas', 'ahci', 'ich9-ahci', 'isa-serial', 'pci-serial', 'pci-serial-2x', 'pci-serial-4x',
  'qemu-xhci', 'nec-usb-xhci', 'usb-ehci', 'ich9-usb-ehci1', 'piix3-usb-uhci', 'usb-tablet', 'usb-kbd', 'usb-mouse',
  'virtio-rng-pci', 'virtio-balloon-pci', 'i6300esb', 'ib700', 'pvpanic', 'VGA', 'cirrus-vga', 'virtio-vga', 'virtio-gpu-pci',
  'bochs-display', 'pci-bridge', 'pcie-root-port', 'ioh3420',
]);

/** Device properties that only tune a device; the ones that name a file, a drive, a chardev, a netdev or a memory backend are absent. */
const DEVICE_PROPERTIES = new Set([
  'id', 'bus', 'addr', 'multifunction', 'mac', 'bootindex', 'vectors', 'mq', 'speed', 'duplex', 'host_mtu', 'romfile', 'rombar',
  'disable-legacy', 'disable-modern', 'ioeventfd', 'event_idx', 'indirect_desc', 'csum', 'gso', 'guest_csum', 'guest_tso4', 'guest_tso6',
  'guest_ecn', 'guest_ufo', 'host_tso4', 'host_tso6', 'host_ecn', 'host_ufo', 'mrg_rxbuf', 'status', 'ctrl_vq', 'ctrl_rx', 'ctrl_vlan',
  'ctrl_rx_extra', 'ctrl_mac_addr', 'ctrl_guest_offloads', 'rx_queue_size', 'tx_queue_size', 'port', 'chassis', 'slot', 'num_queues',
  'iobase', 'irq', 'autonegotiation', 'subsys_ven', 'subsys', 'x-pcie-lnksta-dllla', 'vgamem_mb', 'max_outputs', 'xres', 'yres',
  'disable_s3', 'disable_s4', 'lost_tick_policy', 'io-reserve', 'mem-reserve', 'pref64-reserve',
]);

/** A plain token: letters, digits and `_ . : + -`. */
const TOKEN = /^[\w.:+-]*$/;
const NUMBER = /^\d+$/;
const SIZE = /^\d+(\.\d+)?[kKmMgGtT]?[bB]?$/;
const MAC = /^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/;

type ValueRule = RegExp | readonly string[] | ((value: string) => boolean);
type KeyRules = Record<string, ValueRule>;

/**
 * How QEMU reads one allowed option: a flag, a plain value, a sub-option list (with the key its
 * first bare element stands for), or the name of an image in the images directory.
 */
type OptionRule =
  | { kind: 'flag' }
  | { kind: 'value'; value: ValueRule }
  | { kind: 'suboptions'; implied?: string; keys: KeyRules; check?: (subs: SubOptions, option: string) => void }
  | { kind: 'image' };

const flag = { kind: 'flag' } as const;
const value = (rule: ValueRule): OptionRule => ({ kind: 'value', value: rule });
const subs = (implied: string | undefined, keys: KeyRules, check?: (subs: SubOptions, option: string) => void): OptionRule => ({ kind: 'suboptions', implied, keys, check });
const image = { kind: 'image' } as const;
const ON_OFF = ['on', 'off', 'yes', 'no', 'true', 'false'];
/** Only `none` / `null`: the options that would otherwise open a backend (a file, a socket, a pipe, a program). */
const NO_BACKEND = value(['none', 'null']);

const MACHINE_KEYS: KeyRules = Object.fromEntries(
  ['type', 'accel', 'usb', 'kernel_irqchip', 'kernel-irqchip', 'vmport', 'smm', 'dump-guest-core', 'mem-merge', 'graphics', 'hpet', 'acpi',
    'pit', 'pic', 'max-ram-below-4g', 'smbus', 'i8042', 'sata', 'iommu', 'gic-version', 'highmem', 'virtualization', 'secure', 'its', 'ras',
    'suppress-vmdesc', 'default-bus-bypass-iommu', 'hmat'].map((k) => [k, TOKEN]),
);

/**
 * The allow-list: every option a lab may pass, and per option the sub-options and values it may
 * carry. Anything absent (`-plugin`, `-drive`, `-chardev`, `-object`, `-netdev`, `-monitor`, `-qmp`,
 * `-readconfig`, `-set`, `-incoming`, `-L`, `-D`, `-pidfile`, `-trace`, `-vnc`, `-virtfs`...) is refused.
 */
const ALLOWED: Record<string, OptionRule> = {
  cpu: value(/^[\w.+=,-]+$/),
  smp: subs('cpus', Object.fromEntries(['cpus', 'sockets', 'dies', 'clusters', 'cores', 'threads', 'maxcpus', 'books', 'drawers'].map((k) => [k, NUMBER]))),
  m: subs('size', { size: SIZE, slots: NUMBER, maxmem: SIZE }),
  machine: subs('type', MACHINE_KEYS),
  M: subs('type', MACHINE_KEYS),
  accel: subs('accel', { accel: TOKEN, thread: ['single', 'multi'], 'tb-size': NUMBER, 'kernel-irqchip': TOKEN, 'kvm-shadow-mem': SIZE, 'dirty-ring-size': NUMBER, 'split-wx': ON_OFF }),
  'enable-kvm': flag,
  rtc: subs(undefined, { base: /^(utc|localtime|\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?)$/, clock: ['host', 'rt', 'vm'], driftfix: ['none', 'slew'] }),
  boot: subs('order', { order: /^[a-p]*$/, once: /^[a-p]*$/, menu: ON_OFF, 'splash-time': NUMBER, 'reboot-timeout': /^-?\d+$/, strict: ON_OFF }),
  display: subs('type', { type: ['none'] }),
  nographic: flag,
  vga: value(['std', 'cirrus', 'vmware', 'qxl', 'virtio', 'none']),
  device: subs('driver', deviceKeys(), checkDevice),
  global: value(checkGlobal),
  k: value(/^[a-z]{2}(-[a-z]{2,})?$/),
  usb: flag,
  // The legacy input devices only: `disk:`, `host:`, `serial:`, `net:` and `braille` open files, host devices or chardevs.
  usbdevice: value(['tablet', 'mouse', 'keyboard']),
  'no-reboot': flag,
  'no-shutdown': flag,
  'no-hpet': flag,
  'no-acpi': flag,
  'no-fd-bootchk': flag,
  nodefaults: flag,
  'no-user-config': flag,
  'mem-prealloc': flag,
  snapshot: flag,
  S: flag,
  'win2k-hack': flag,
  name: subs('guest', { guest: () => true, process: TOKEN, 'debug-threads': ON_OFF }),
  uuid: value(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/),
  smbios: subs(undefined, Object.fromEntries(
    ['type', 'vendor', 'version', 'date', 'release', 'uefi', 'manufacturer', 'product', 'serial', 'uuid', 'sku', 'family', 'asset', 'location', 'part', 'speed', 'sock_pfx', 'loc_pfx', 'bank'].map((k) => [k, () => true]),
  )),
  fw_cfg: subs('name', { name: /^opt\/[\w./-]+$/, string: () => true }),
  append: value(() => true),
  icount: subs('shift', { shift: /^(\d+|auto)$/, align: ON_OFF, sleep: ON_OFF }),
  'watchdog-action': value(['reset', 'shutdown', 'poweroff', 'inject-nmi', 'pause', 'debug', 'none']),
  msg: subs(undefined, { timestamp: ON_OFF, 'guest-name': ON_OFF }),
  overcommit: subs(undefined, { 'mem-lock': ON_OFF, 'cpu-pm': ON_OFF }),
  echr: value(NUMBER),
  sandbox: subs('enable', { enable: ON_OFF, obsolete: ['allow', 'deny'], elevateprivileges: ['allow', 'deny', 'children'], spawn: ['allow', 'deny'], resourcecontrol: ['allow', 'deny'] }),
  loadvm: value(/^[\w.-]+$/),
  serial: NO_BACKEND,
  parallel: NO_BACKEND,
  monitor: NO_BACKEND,
  bios: image,
  kernel: image,
  initrd: image,
  dtb: image,
};

/**
 * Parses an `options` string into QEMU options, as QEMU reads its argv: `--name` is `-name`, an
 * option with an argument takes the next word whatever it is, and a word that is not an option
 * (QEMU would take it as a disk image) or an option not in the allow-list is refused.
 */
export function parseQemuOptions(text: string | null | undefined): QemuOption[] {
  const words = splitOptions(text);
  const out: QemuOption[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith('-') || word === '-' || word === '--') throw new InvalidError(`options: '${word}' is not an option (QEMU would open it as a disk image)`);
    const name = word.replace(/^--?/, '');
    const rule = Object.hasOwn(ALLOWED, name) ? ALLOWED[name] : undefined;
    if (!rule) throw new InvalidError(`options: ${word} is not allowed (an option that is not in emuctl's allow-list, or that opens a file, a socket, a plugin, a monitor or a chardev backend); set qemu_unsafe_options on a trusted single-user install to pass it`);
    if (rule.kind === 'flag') {
      out.push({ name });
      continue;
    }
    if (i + 1 >= words.length) throw new InvalidError(`options: -${name} needs a value`);
    out.push({ name, value: words[++i] });
  }
  return out;
}

/**
 * Parses a QEMU sub-option list: `a=1,b=x,,y` → a=1, b=`x,y`. A first element without `=` is
 * `implied`'s value (`-device e1000` is driver=e1000); a later bare `key` means key=on, as QEMU reads it.
 */
export function parseSubOptions(text: string, implied?: string): SubOptions {
  const out: SubOptions = [];
  let i = 0;
  while (i <= text.length) {
    let element = '';
    for (; i < text.length; i++) {
      if (text[i] !== ',') element += text[i];
      else if (text[i + 1] === ',') element += text[i++];
      else break;
    }
    i++;
    const eq = element.indexOf('=');
    if (eq >= 0) out.push({ key: element.slice(0, eq), value: element.slice(eq + 1) });
    else if (out.length === 0 && implied) out.push({ key: implied, value: element });
    else out.push({ key: element, value: 'on' });
  }
  return out;
}

/**
 * Checks a node's `options` against the allow-list; InvalidError (400) naming the first option
 * refused. `imagePath` checks an image name (a 400 when it leaves the images directory).
 */
export function checkQemuOptions(text: string | null | undefined, imagePath: (name: string) => string): CheckedOptions {
  const args: string[] = [];
  const images: CheckedOptions['images'] = [];
  for (const option of parseQemuOptions(text)) {
    const rule = ALLOWED[option.name];
    const shown = `-${option.name}`;
    args.push(shown);
    if (option.value === undefined) continue;
    if (rule.kind === 'image') {
      try {
        imagePath(option.value);
      } catch (err) {
        throw new InvalidError(`options: ${shown} ${option.value} is not allowed: ${(err as Error).message}`);
      }
      images.push({ index: args.length, name: option.value, option: shown });
    } else if (rule.kind === 'value') {
      if (!accepts(rule.value, option.value)) throw new InvalidError(`options: ${shown} ${option.value} is not allowed`);
    } else if (rule.kind === 'suboptions') {
      // QEMU reads a value starting with `{` as JSON, whose keys would escape the sub-option check.
      if (option.value.trimStart().startsWith('{')) throw new InvalidError(`options: ${shown} with a JSON value is not allowed`);
      const parsed = parseSubOptions(option.value, rule.implied);
      for (const { key, value: v } of parsed) {
        const keyRule = Object.hasOwn(rule.keys, key) ? rule.keys[key] : undefined;
        if (!keyRule) throw new InvalidError(`options: ${shown} ${key}= is not allowed (${shown} ${option.value})`);
        if (!accepts(keyRule, v)) throw new InvalidError(`options: ${shown} ${key}=${v} is not allowed`);
      }
      rule.check?.(parsed, shown);
    }
    args.push(option.value);
  }
  return { args, images };
}

/** An image name that stays inside whatever images directory resolves it: relative, without `..`. InvalidError otherwise. */
export function relativeImageName(name: string): string {
  if (!name || name.includes('\0') || isAbsolute(name) || name.split(/[\\/]/).includes('..')) throw new InvalidError(`Image name '${name}' must be a name inside the images directory`);
  return name;
}

function accepts(rule: ValueRule, v: string): boolean {
  if (rule instanceof RegExp) return rule.test(v);
  if (typeof rule === 'function') return rule(v);
  return rule.includes(v);
}

/** `-device` keys: the model (as `driver`) and the tuning properties. */
function deviceKeys(): KeyRules {
  const keys: KeyRules = { driver: (m) => DEVICE_MODELS.has(m) };
  for (const p of DEVICE_PROPERTIES) keys[p] = propertyRule(p);
  return keys;
}

/** A device property's values: a MAC for `mac`, nothing for `romfile` (no option ROM), a plain token otherwise. */
function propertyRule(property: string): ValueRule {
  if (property === 'mac') return MAC;
  if (property === 'romfile') return [''];
  return TOKEN;
}

/** A `-device` names its model first (or as `driver=`), once. */
function checkDevice(parsed: SubOptions, option: string): void {
  const drivers = parsed.filter((s) => s.key === 'driver');
  if (drivers.length !== 1) throw new InvalidError(`options: ${option} must name one device model`);
}

/** `-global driver.property=value` or `-global driver=D,property=P,value=V`: allowed for a tuning property. */
function checkGlobal(text: string): boolean {
  const short = /^([^.=,]+)\.([^=,]+)=(.*)$/s.exec(text);
  if (short) return !short[3].includes(',') && globalAllowed(short[2], short[3]);
  if (text.trimStart().startsWith('{')) return false;
  const parsed = parseSubOptions(text);
  const keys = parsed.map((s) => s.key);
  if (keys.length !== 3 || !['driver', 'property', 'value'].every((k) => keys.includes(k))) return false;
  const get = (k: string) => parsed.find((s) => s.key === k)!.value;
  return TOKEN.test(get('driver')) && globalAllowed(get('property'), get('value'));
}

function globalAllowed(property: string, v: string): boolean {
  return DEVICE_PROPERTIES.has(property) && !['id', 'bus', 'addr'].includes(property) && accepts(propertyRule(property), v);
}
