import { isIPv6 } from 'node:net';
import type { Logger } from '../../logger.js';

/** When failures from an address are slowed: after `maxFailures` wrong passwords, for `backoffMs`, doubled for each further round. */
export interface LoginBackoff {
  maxFailures: number;
  backoffMs: number;
}

/** The longest wait, however often an address keeps guessing; an address quiet this long starts afresh. */
const MAX_WAIT_MS = 15 * 60_000;
/** Addresses remembered at most (the least recently failing are forgotten first). */
const MAX_ADDRESSES = 10_000;

interface Record {
  failures: number;
  rounds: number;
  until: number;
  last: number;
}

/**
 * Wrong passwords per client, and how long its further failures are slowed. Only failures are
 * counted and only failures are slowed: the right password is never refused because of them,
 * so a guesser sharing the owner's address (127.0.0.1) cannot lock the owner out.
 */
export class LoginFailures {
  private readonly byClient = new Map<string, Record>();

  constructor(private readonly backoff: LoginBackoff, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /** Milliseconds the client's failures are still slowed for (0: a failure now is an ordinary 401). */
  waitFor(address: string): number {
    const record = this.current(clientKey(address));
    return record ? Math.max(0, record.until - this.now()) : 0;
  }

  /** A wrong password: once the client has `maxFailures`, each further one starts a longer wait (logged once per wait). */
  failed(address: string): void {
    const key = clientKey(address);
    const record = this.current(key) ?? { failures: 0, rounds: 0, until: 0, last: 0 };
    this.byClient.delete(key);
    this.byClient.set(key, record); // most recent last, so the oldest go first when the map is full
    record.failures++;
    record.last = this.now();
    if (record.failures >= this.backoff.maxFailures) {
      const waitMs = Math.min(MAX_WAIT_MS, this.backoff.backoffMs * 2 ** Math.min(record.rounds, 30));
      const logged = record.until > record.last;
      record.rounds++;
      record.until = record.last + waitMs;
      if (!logged) this.log.warn(`auth: ${record.failures} failed logins from ${key}; its failures get 429 for ${Math.ceil(waitMs / 1000)} s`);
    }
    if (this.byClient.size > MAX_ADDRESSES) this.byClient.delete(this.byClient.keys().next().value!);
  }

  /** How many clients are remembered (bounded by MAX_ADDRESSES). */
  get size(): number {
    return this.byClient.size;
  }

  private current(key: string): Record | undefined {
    const record = this.byClient.get(key);
    if (record && this.now() - record.last > MAX_WAIT_MS && this.now() > record.until) {
      this.byClient.delete(key);
      return undefined;
    }
    return record;
  }
}

/**
 * Who a failure is counted against: an IPv4 address (also when it arrives IPv4-mapped), or the /64
 * of an IPv6 address, since one host is usually given a whole /64 and could rotate through it.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lowercase hex without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.map((g) => parseInt(g, 16).toString(16));
}
