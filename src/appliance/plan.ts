import { kvmMode, qemuArch, resolveVersions, type ResolvedVersion } from './appliance.js';
import { describeProblem, matchImage, type ComputeImage, type ImageMatch } from './images.js';
import type { ApplianceFile, Emulator, KvmMode } from './schema.js';

/** Emulators emuctl makes templates for. */
export const SUPPORTED_EMULATORS: readonly Emulator[] = ['qemu', 'docker'];

/** What a compute offers that decides whether an appliance installs there. */
export interface ComputeFacts {
  computeId: string;
  /** QEMU images (GET .../qemu/images). */
  images: ComputeImage[];
  /** Platforms KVM accelerates there (GET .../qemu/capabilities `kvm`). */
  kvm: string[];
  /** Docker images present there (`name:tag`). */
  dockerImages: string[];
  /** Node types the compute runs (its capabilities' `node_types`), when it says. */
  nodeTypes?: string[];
}

/** One version checked against a compute. */
export interface VersionPlan {
  version: ResolvedVersion;
  matches: ImageMatch[];
  kvm: KvmMode;
  /** Why it cannot be installed (empty: installable). */
  problems: string[];
  /** For docker: whether the image is already on the compute (else it is pulled at first start). */
  dockerImagePresent?: boolean;
}

/** Why an emulator is not supported, or undefined. */
export function unsupportedReason(file: ApplianceFile): string | undefined {
  if (SUPPORTED_EMULATORS.includes(file.emulator)) return undefined;
  return `${file.name} is a ${file.emulator} appliance: emuctl does not support ${file.emulator} nodes (it installs docker and QEMU appliances)`;
}

/** Checks every version of the appliance against the compute. */
export function planAppliance(file: ApplianceFile, facts: ComputeFacts): VersionPlan[] {
  const unsupported = unsupportedReason(file);
  return resolveVersions(file).map((version) => {
    const matches = version.images.map((need) => matchImage(need, facts.images));
    const kvm = kvmMode(file, version.properties);
    const problems: string[] = [];
    if (unsupported) problems.push(unsupported);
    else if (facts.nodeTypes && !facts.nodeTypes.includes(file.emulator)) problems.push(`compute ${facts.computeId} runs no ${file.emulator} nodes (its node types: ${facts.nodeTypes.join(', ') || 'none'})`);
    if (version.broken) problems.push(version.broken);
    for (const m of matches) {
      const problem = describeProblem(m);
      if (problem) problems.push(problem);
    }
    if (kvm === 'require' && !facts.kvm.includes(qemuArch(version.properties))) {
      problems.push(kvmProblem(file, version, facts));
    }
    const plan: VersionPlan = { version, matches, kvm, problems };
    if (file.emulator === 'docker') plan.dockerImagePresent = facts.dockerImages.includes(withTag(String(version.properties.image)));
    return plan;
  });
}

/** The reason a KVM-only version cannot run on the compute. */
export function kvmProblem(file: ApplianceFile, version: ResolvedVersion, facts: ComputeFacts): string {
  const arch = qemuArch(version.properties);
  const has = facts.kvm.length ? `KVM only for ${facts.kvm.join(', ')}` : 'no KVM';
  return `${file.name} ${version.name} requires KVM for ${arch} (kvm: require) and compute ${facts.computeId} has ${has}`;
}

/** A docker image reference with its tag (`alpine` is `alpine:latest`). */
export function withTag(image: string): string {
  const lastSlash = image.lastIndexOf('/');
  return image.slice(lastSlash + 1).includes(':') ? image : `${image}:latest`;
}
