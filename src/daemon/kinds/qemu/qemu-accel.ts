import { accessSync, constants, readFileSync } from 'node:fs';
import { ConflictError, InvalidError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** The `qemu_accel` setting. */
export type QemuAccelSetting = 'auto' | 'kvm' | 'tcg';
export const QEMU_ACCEL_SETTINGS: QemuAccelSetting[] = ['auto', 'kvm', 'tcg'];

/** Why KVM can or cannot run guests here: /dev/kvm read-write and a CPU with vmx or svm. */
export function kvmStatus(): { usable: boolean; reason: string } {
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
  } catch {
    return { usable: false, reason: '/dev/kvm is missing or not read-write for this user' };
  }
  let cpuinfo = '';
  try {
    cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return { usable: false, reason: '/proc/cpuinfo is not readable' };
  }
  if (!/^flags\s*:.*\b(vmx|svm)\b/m.test(cpuinfo)) return { usable: false, reason: 'the CPU flags show neither vmx nor svm' };
  return { usable: true, reason: 'KVM is usable' };
}

/** Platforms KVM accelerates on this host (GNS3's capabilities.kvm). */
export function kvmPlatforms(): string[] {
  if (!kvmStatus().usable) return [];
  return process.arch === 'x64' ? ['x86_64', 'i386'] : process.arch === 'arm64' ? ['aarch64'] : [];
}

/** Chooses the accelerator of one VM start; warns once when `auto` falls back to TCG. */
export class AccelChooser {
  private warned = false;

  constructor(readonly setting: QemuAccelSetting, private readonly log: Logger) {
    if (!QEMU_ACCEL_SETTINGS.includes(setting)) throw new InvalidError(`qemu_accel must be auto, kvm or tcg, not '${setting}'`);
  }

  /** Platforms this daemon's VMs get KVM for (capabilities.kvm): none when the setting is tcg. */
  platforms(): string[] {
    return this.setting === 'tcg' ? [] : kvmPlatforms();
  }

  /** `kvm` or `tcg` for a VM of `platform`; a `kvm` setting that cannot work is a 409. */
  choose(platform: string): 'kvm' | 'tcg' {
    if (this.setting === 'tcg') return 'tcg';
    const kvm = kvmStatus();
    const fits = kvmPlatforms().includes(platform);
    if (this.setting === 'kvm') {
      if (!kvm.usable) throw new ConflictError(`qemu_accel is kvm but KVM cannot run guests here: ${kvm.reason}`);
      if (!fits) throw new ConflictError(`qemu_accel is kvm but KVM cannot accelerate ${platform} guests on this host`);
      return 'kvm';
    }
    if (kvm.usable && fits) return 'kvm';
    if (!this.warned) {
      this.warned = true;
      this.log.warn(`QEMU runs without KVM, under TCG (slow): ${kvm.usable ? `KVM cannot accelerate ${platform}` : kvm.reason}`);
    }
    return 'tcg';
  }
}
