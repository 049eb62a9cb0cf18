import type { Logger } from '../../logger.js';

/** When an address must wait: after `maxFailures` wrong passwords, for `backoffMs`, doubled for each further round. */
export interface LoginBackoff {
  maxFailures: number;
  backoffMs: number;
}

/** The longest wait, however often an address keeps guessing. */
const MAX_WAIT_MS = 15 * 60_000;
/** Addresses remembered at most (the oldest are forgotten first). */
const MAX_ADDRESSES = 10_000;

interface Record {
  failures: number;
  rounds: number;
  until: number;
}

/** Wrong passwords per client address, and the wait each address has earned. */
export class LoginFailures {
  private readonly byAddress = new Map<string, Record>();

  constructor(private readonly backoff: LoginBackoff, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /** Milliseconds the address must still wait (0: it may try). */
  waitFor(address: string): number {
    const record = this.byAddress.get(address);
    return record ? Math.max(0, record.until - this.now()) : 0;
  }

  /** A wrong password: once the address has `maxFailures`, it waits (logged once per wait). */
  failed(address: string): void {
    const record = this.byAddress.get(address) ?? { failures: 0, rounds: 0, until: 0 };
    this.byAddress.delete(address);
    this.byAddress.set(address, record); // most recent last, so the oldest go first when the map is full
    record.failures++;
    if (record.failures >= this.backoff.maxFailures) {
      const waitMs = Math.min(MAX_WAIT_MS, this.backoff.backoffMs * 2 ** record.rounds);
      record.rounds++;
      record.until = this.now() + waitMs;
      this.log.warn(`auth: ${record.failures} failed logins from ${address}; it gets 429 for ${Math.ceil(waitMs / 1000)} s`);
    }
    if (this.byAddress.size > MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
  }

  /** The right password: the address starts afresh. */
  succeeded(address: string): void {
    this.byAddress.delete(address);
  }
}
