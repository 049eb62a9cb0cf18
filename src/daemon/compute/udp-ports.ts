import { createSocket } from 'node:dgram';
import { ConflictError } from '../errors.js';

/** Hands out UDP tunnel ports from a range, never one this compute holds or that is bound on the host. */
export class UdpPortAllocator {
  private readonly owners = new Map<number, string>();
  private next: number;

  constructor(private readonly range: [number, number], private readonly bindHost: string) {
    this.next = range[0];
  }

  /** Allocates a free port for a project. */
  async allocate(projectId: string): Promise<number> {
    const [first, last] = this.range;
    const size = last - first + 1;
    for (let i = 0; i < size; i++) {
      const port = this.next;
      this.next = port >= last ? first : port + 1;
      if (this.owners.has(port)) continue;
      if (await isBindable(port, this.bindHost)) {
        this.owners.set(port, projectId);
        return port;
      }
    }
    throw new ConflictError(`No free UDP port left in ${first}-${last}`);
  }

  /** Marks a port as used by a project (a NIO's lport given by the caller). */
  reserve(port: number, projectId: string): void {
    const owner = this.owners.get(port);
    if (owner && owner !== projectId) throw new ConflictError(`UDP port ${port} is already used by another project`);
    this.owners.set(port, projectId);
  }

  release(port: number): void {
    this.owners.delete(port);
  }

  /** Releases every port of a project. */
  releaseProject(projectId: string): void {
    for (const [port, owner] of this.owners) if (owner === projectId) this.owners.delete(port);
  }

  /** Ports currently held, for /network/ports. */
  used(): number[] {
    return [...this.owners.keys()].sort((a, b) => a - b);
  }
}

function isBindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}
