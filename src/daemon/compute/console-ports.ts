import { ConflictError } from '../errors.js';
import { Ownership, type Owner } from './ownership.js';
import { ANY_ADDRESS, isTcpPortFree } from './port-probe.js';

export { isTcpPortFree, isUdpPortFree } from './port-probe.js';

/** Range and bind address of a console port allocator. */
export interface ConsolePortRange {
  min?: number;
  max?: number;
  host?: string;
}

/**
 * Hands out console TCP ports from a range (default 5000-10000), each held by its node, skipping
 * ports already held and ports some other program has bound (an unconfined VPCS binds its console on 0.0.0.0).
 */
export class ConsolePortAllocator {
  readonly min: number;
  readonly max: number;
  private readonly host: string;
  private readonly owners = new Ownership<number>();
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

  /** Holds `preferred` for `owner` when given (ConflictError if taken), else the next free port of the range. */
  async allocate(owner: Owner, preferred?: number): Promise<number> {
    if (preferred !== undefined) {
      if (this.owners.holder(preferred) || !(await isTcpPortFree(preferred, this.host))) {
        throw new ConflictError(`Console port ${preferred} is already in use`);
      }
      this.owners.take(preferred, owner);
      return preferred;
    }
    for (let tried = 0; tried <= this.max - this.min; tried++) {
      const port = this.next;
      this.next = port === this.max ? this.min : port + 1;
      if (this.owners.holder(port)) continue;
      this.owners.take(port, owner); // Held while probing, so concurrent calls never pick the same port.
      if (await isTcpPortFree(port, this.host)) return port;
      this.owners.release(port, owner);
    }
    throw new ConflictError(`No free console port left in ${this.min}-${this.max}: widen the console_port_range setting (EMUCTL_CONSOLE_PORT_RANGE)`);
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

  /** True when this allocator has handed out `port`. */
  isReserved(port: number): boolean {
    return this.owners.holder(port) !== undefined;
  }

  /** Ports currently held, for /network/ports. */
  used(): number[] {
    return this.owners.held().sort((a, b) => a - b);
  }
}
