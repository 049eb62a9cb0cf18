import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { ConflictError } from '../../errors.js';

/**
 * VPCS 0.5b2 binds its console on INADDR_ANY (0.0.0.0) and its UDP port too, so a port counts as free
 * only when it can be bound on every interface, not just 127.0.0.1.
 */
const ANY_ADDRESS = '0.0.0.0';

/** True when a TCP listener could bind `port` on `host` right now. */
export function isTcpPortFree(port: number, host = ANY_ADDRESS): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when a UDP socket could bind `port` on `host` right now. */
export function isUdpPortFree(port: number, host = ANY_ADDRESS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ port, address: host, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}

/** Range and bind address of a console port allocator. */
export interface ConsolePortRange {
  min?: number;
  max?: number;
  host?: string;
}

/**
 * Hands out console TCP ports from a range (default 5000-10000), skipping ports this allocator has
 * already given out and ports some other program holds. Release a port when its node is deleted.
 */
export class ConsolePortAllocator {
  readonly min: number;
  readonly max: number;
  private readonly host: string;
  private readonly reserved = new Set<number>();
  private next: number;

  constructor({ min = 5000, max = 10000, host = ANY_ADDRESS }: ConsolePortRange = {}) {
    if (!(Number.isInteger(min) && Number.isInteger(max) && 0 < min && min <= max && max <= 65535)) {
      throw new RangeError(`invalid console port range ${min}-${max}`);
    }
    this.min = min;
    this.max = max;
    this.host = host;
    this.next = min;
  }

  /** Reserves `preferred` when given (ConflictError if taken), else the next free port of the range. */
  async allocate(preferred?: number): Promise<number> {
    if (preferred !== undefined) {
      if (this.reserved.has(preferred) || !(await isTcpPortFree(preferred, this.host))) {
        throw new ConflictError(`Console port ${preferred} is already in use`);
      }
      this.reserved.add(preferred);
      return preferred;
    }
    const size = this.max - this.min + 1;
    for (let tried = 0; tried < size; tried++) {
      const port = this.next;
      this.next = port === this.max ? this.min : port + 1;
      if (this.reserved.has(port)) continue;
      this.reserved.add(port); // Held while probing, so concurrent calls never pick the same port.
      if (await isTcpPortFree(port, this.host)) return port;
      this.reserved.delete(port);
    }
    throw new ConflictError(`No free console port left in ${this.min}-${this.max}`);
  }

  /** Marks a port as taken (a node restored with a console port already chosen). */
  reserve(port: number): void {
    this.reserved.add(port);
  }

  /** Gives a port back to the range. */
  release(port: number): void {
    this.reserved.delete(port);
  }

  /** True when this allocator has handed out `port`. */
  isReserved(port: number): boolean {
    return this.reserved.has(port);
  }
}
