import type Docker from 'dockerode';
import { isOwnerAlive, thisProcessAsOwner, type RegistryOwner } from '../../compute/process/process-registry.js';

/** Labels on every container and volume emuctl makes. */
export const LABEL = {
  /** The daemon's home (its run directory): daemons of other homes never touch these. */
  daemon: 'emuctl.daemon',
  /** The daemon process (pid-starttime): a restarted daemon removes what a dead one left. */
  owner: 'emuctl.owner',
  project: 'emuctl.project',
  node: 'emuctl.node',
} as const;

/** Who made a container: this daemon process, in its home. */
export class DaemonIdentity {
  readonly owner: RegistryOwner;

  constructor(readonly home: string, owner: RegistryOwner = thisProcessAsOwner()) {
    this.owner = owner;
  }

  labels(projectId: string, nodeId: string): Record<string, string> {
    return { [LABEL.daemon]: this.home, [LABEL.owner]: `${this.owner.pid}-${this.owner.startTime}`, [LABEL.project]: projectId, [LABEL.node]: nodeId };
  }

  /** True for a label set of a daemon of this home that no longer runs (not this one, not a live one). */
  isLeftover(labels: Record<string, string> | undefined): boolean {
    if (labels?.[LABEL.daemon] !== this.home) return false;
    const m = /^(\d+)-(\d+)$/.exec(labels[LABEL.owner] ?? '');
    if (!m) return true;
    return !isOwnerAlive({ pid: Number(m[1]), startTime: Number(m[2]) });
  }
}

/** Removes the containers and volumes that dead daemons of this home left; returns the containers' names. */
export async function removeLeftovers(docker: Docker, identity: DaemonIdentity): Promise<string[]> {
  const filters = JSON.stringify({ label: [`${LABEL.daemon}=${identity.home}`] });
  const removed: string[] = [];
  for (const c of await docker.listContainers({ all: true, filters })) {
    if (!identity.isLeftover(c.Labels)) continue;
    await docker.getContainer(c.Id).remove({ force: true, v: true });
    removed.push(c.Names[0]?.replace(/^\//, '') ?? c.Id);
  }
  const { Volumes } = await docker.listVolumes({ filters });
  for (const v of Volumes ?? []) if (identity.isLeftover(v.Labels)) await docker.getVolume(v.Name).remove().catch(() => undefined);
  return removed;
}
