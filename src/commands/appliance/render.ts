import type { VersionPlan } from '../../appliance/plan.js';
import type { ApplianceFile } from '../../appliance/schema.js';
import type { Style } from '../../render/style.js';

/** A plan as JSON: each version, its images and whether the compute has them, its problems. */
export function planJson(file: ApplianceFile, computeId: string, plans: VersionPlan[]): Record<string, unknown> {
  return {
    name: file.name,
    emulator: file.emulator,
    registry_version: file.registry_version,
    compute_id: computeId,
    installable: plans.some((p) => !p.problems.length),
    versions: plans.map((p) => ({
      name: p.version.name,
      installable: !p.problems.length,
      kvm: p.kvm,
      images: p.matches.map((m) => ({ slot: m.need.slot, filename: m.need.filename, md5sum: m.need.image.md5sum ?? null, filesize: m.need.image.filesize ?? null, state: m.state, ...(m.state !== 'missing' ? { compute_path: m.path } : {}) })),
      ...(p.dockerImagePresent !== undefined ? { image: p.version.properties.image, image_present: p.dockerImagePresent } : {}),
      problems: p.problems,
    })),
  };
}

/** A plan for people: one block per version, one line per image. */
export function planText(file: ApplianceFile, computeId: string, plans: VersionPlan[], style: Style): string {
  const lines = [`${file.name} (${file.emulator} appliance, registry version ${file.registry_version}) on compute ${computeId}`];
  for (const p of plans) {
    const ok = !p.problems.length;
    lines.push(`  version ${p.version.name}: ${ok ? style.green('installable') : style.red('not installable')}${p.kvm === 'require' ? ' (requires KVM)' : ''}`);
    for (const m of p.matches) {
      const state = m.state === 'present' ? style.green(`present as ${m.path}`) : m.state === 'md5-differs' ? style.red(`md5 differs (${m.path})`) : style.red('missing');
      lines.push(`    ${m.need.slot} ${m.need.filename}  md5 ${m.need.image.md5sum ?? '-'}  ${m.need.image.filesize ?? '?'} bytes  ${state}`);
    }
    if (p.dockerImagePresent !== undefined) lines.push(`    docker image ${String(p.version.properties.image)}: ${p.dockerImagePresent ? 'present' : 'not present (pulled at first start)'}`);
    for (const problem of p.problems) lines.push(`    ${style.red('!')} ${problem}`);
  }
  return lines.join('\n') + '\n';
}
