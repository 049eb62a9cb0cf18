import { ConflictError, InvalidError } from '../../errors.js';
import { QEMU_DISK_INTERFACES, QEMU_DRIVES, QEMU_NIC_MODELS } from './schemas.js';
import type { ImageStore } from './images.js';
import { platformOf, resolveQemuBinary } from './qemu-binaries.js';
import { splitOptions } from './qemu-command.js';
import { checkQemuOptions } from './qemu-options.js';
import type { QemuSettings } from './qemu-settings.js';

/** How a compute holds a node's settings to its command-line rules. */
export interface CommandLinePolicy {
  images: ImageStore;
  /** qemu_unsafe_options: the user's `options` pass unchecked (a trusted single-user install). */
  unsafeOptions: boolean;
}

/**
 * Checks every setting of a QEMU node that becomes a QEMU argument: no NUL anywhere (an argument
 * cannot hold one), the adapter models (each a `-device` model), the disk interfaces (inside
 * `-drive`), the binary's name and the `options`. InvalidError (400) naming the first value refused.
 */
export function checkCommandLineValues(name: string, s: QemuSettings, policy: CommandLinePolicy): void {
  for (const [key, value] of [['name', name], ...Object.entries(s)] as [string, unknown][]) {
    if (String(JSON.stringify(value)).includes('\\u0000')) throw new InvalidError(`${key} holds a NUL character, which no command-line argument can hold`);
  }
  for (const type of [s.adapter_type, ...s.custom_adapters.map((c) => c.adapter_type)]) {
    if (type !== undefined && !QEMU_NIC_MODELS.includes(type)) throw new InvalidError(`adapter_type '${type}' is not a known network adapter model (known: ${QEMU_NIC_MODELS.join(', ')})`);
  }
  for (const d of QEMU_DRIVES) {
    const iface = s[`${d}_disk_interface`];
    if (!QEMU_DISK_INTERFACES.includes(iface)) throw new InvalidError(`${d}_disk_interface '${iface}' is not one of ${QEMU_DISK_INTERFACES.join(', ')}`);
  }
  if (s.qemu_path && !platformOf(s.qemu_path)) throw new InvalidError(`qemu_path '${s.qemu_path}' is not a qemu-system-* executable`);
  if (!policy.unsafeOptions) checkQemuOptions(s.options, (name) => policy.images.pathOf(name));
}

/**
 * The binary and the user's arguments a node's settings give at start, checked again: a node
 * restored from a project or an archive was never checked, so a refused value is a 409 naming it
 * until the node is edited. Image names in `options` become the checked paths of existing images.
 */
export function startCommand(name: string, s: QemuSettings, policy: CommandLinePolicy, env: NodeJS.ProcessEnv): Promise<{ binary: string; options: string[] }> {
  return refusedAtStart(async () => {
    checkCommandLineValues(name, s, policy);
    const binary = resolveQemuBinary(s.platform, s.qemu_path, env);
    if (policy.unsafeOptions) return { binary, options: splitOptions(s.options) };
    const checked = checkQemuOptions(s.options, (name) => policy.images.pathOf(name));
    for (const { index, name, option } of checked.images) checked.args[index] = await policy.images.existing(name, `${option} image`);
    return { binary, options: checked.args };
  });
}

/** Runs a start-time check: a value refused (400 when a client sends it) is a 409 for a node about to start. */
export async function refusedAtStart<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof InvalidError) throw new ConflictError(`${err.message}: change it before starting the node`);
    throw err;
  }
}
