import { ConflictError } from '../errors.js';
import { Ownership, PROJECT_OWNER, sameOwner, type Owner } from './ownership.js';
import { isUdpPortFree } from './port-probe.js';

/** How a port is to be allocated. */
export interface UdpPortRequest {
  /** Ports held together with it, as offsets from it (VPCS 0.5b2 also binds its port + 9). */
  companions?: number[];
  /** Address every port must be bindable on (VPCS binds 0.0.0.0); default the compute's bind address. */
  host?: string;
}

/**
 * Hands out UDP tunnel ports from a range, each held by an owner (a node, or the project for a port
 * given out by /ports/udp and not yet used by a NIO); never a port that is held or bound on the host.
 */
export class UdpPortAllocator {
  private readonly owners = new Ownership<number>();
  private next: number;

  constructor(private readonly range: [number, number], private readonly bindHost: string) {
    this.next = range[0];
  }

  /** A free port (and its companions), held for `owner`. */
  async allocate(owner: Owner, request: UdpPortRequest = {}): Promise<number> {
    const [first, last] = this.range;
    const offsets = [0, ...(request.companions ?? [])];
    for (let tried = 0; tried <= last - first; tried++) {
      const port = this.next;
      this.next = port >= last ? first : port + 1;
      const ports = offsets.map((offset) => port + offset);
      if (ports.some((p) => p < first || p > last || this.owners.holder(p))) continue;
      for (const p of ports) this.owners.take(p, owner); // held while probing, so concurrent calls never pick them
      const free = await Promise.all(ports.map((p) => isUdpPortFree(p, request.host ?? this.bindHost)));
      if (free.every(Boolean)) return port;
      for (const p of ports) this.owners.release(p, owner);
    }
    const needs = request.companions?.length ? ` (with ${request.companions.map((o) => `port + ${o}`).join(', ')} free too)` : '';
    throw new ConflictError(`No free UDP port left in ${first}-${last}${needs}: widen the udp_port_range setting (EMUCTL_UDP_PORT_RANGE)`);
  }

  /** Holds a port a NIO was given as its lport: a free one, or one /ports/udp gave to the same project. */
  reserve(port: number, owner: Owner): void {
    const holder = this.owners.holder(port);
    if (holder && !sameOwner(holder, owner) && !(holder.projectId === owner.projectId && holder.id === PROJECT_OWNER)) {
      throw new ConflictError(`UDP port ${port} is already used ${holder.projectId === owner.projectId ? 'in this project' : 'by another project'}`);
    }
    this.owners.take(port, owner);
  }

  /** Frees a port if `owner` holds it. */
  release(port: number, owner: Owner): void {
    this.owners.release(port, owner);
  }

  releaseOwner(owner: Owner): void {
    this.owners.releaseOwner(owner);
  }

  releaseProject(projectId: string): void {
    this.owners.releaseProject(projectId);
  }

  /** Ports currently held, for /network/ports. */
  used(): number[] {
    return this.owners.held().sort((a, b) => a - b);
  }
}
