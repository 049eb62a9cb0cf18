/**
 * Who holds an allocation on a compute: a node (its console port, MAC byte, internal UDP ports and NIO
 * ports) or the project itself (a UDP port handed out by `/ports/udp` that no NIO uses yet).
 */
export interface Owner {
  projectId: string;
  /** A node id, or PROJECT_OWNER for the project itself. */
  id: string;
}

/** The owner id of allocations that belong to the project rather than to one of its nodes. */
export const PROJECT_OWNER = 'project';

/** The owner of a node's allocations. */
export function nodeOwner(projectId: string, nodeId: string): Owner {
  return { projectId, id: nodeId };
}

/** The owner of a project's own allocations. */
export function projectOwner(projectId: string): Owner {
  return { projectId, id: PROJECT_OWNER };
}

/** Which owner holds each resource of one kind; releases by anyone but the holder change nothing. */
export class Ownership<R> {
  private readonly holders = new Map<R, Owner>();

  holder(resource: R): Owner | undefined {
    return this.holders.get(resource);
  }

  /** Records `owner` as the holder of `resource` (the caller has checked it is free or transferable). */
  take(resource: R, owner: Owner): void {
    this.holders.set(resource, { projectId: owner.projectId, id: owner.id });
  }

  /** Frees `resource` if `owner` holds it. */
  release(resource: R, owner: Owner): void {
    if (sameOwner(this.holders.get(resource), owner)) this.holders.delete(resource);
  }

  /** Frees everything `owner` holds. */
  releaseOwner(owner: Owner): void {
    for (const [resource, holder] of this.holders) if (sameOwner(holder, owner)) this.holders.delete(resource);
  }

  /** Frees everything any owner of the project holds. */
  releaseProject(projectId: string): void {
    for (const [resource, holder] of this.holders) if (holder.projectId === projectId) this.holders.delete(resource);
  }

  /** The resources held, by anyone. */
  held(): R[] {
    return [...this.holders.keys()];
  }
}

/** True when both name the same owner. */
export function sameOwner(a: Owner | undefined, b: Owner | undefined): boolean {
  return !!a && !!b && a.projectId === b.projectId && a.id === b.id;
}
