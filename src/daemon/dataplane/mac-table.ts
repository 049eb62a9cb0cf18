import type { MacTableEntry } from './types.js';

/** The part of a port the MAC table needs. */
export interface MacPort {
  readonly number: number;
}

interface Entry<P> {
  port: P;
  seen: number;
}

/** A MAC address at `offset` in `b` as a 48-bit number (exact in a double, so a Map key without a string). */
export function macKey(b: Uint8Array, offset: number): number {
  return ((b[offset] << 8) | b[offset + 1]) * 0x100000000
    + (((b[offset + 2] << 24) | (b[offset + 3] << 16) | (b[offset + 4] << 8) | b[offset + 5]) >>> 0);
}

/** "aa:bb:cc:dd:ee:ff" for a 48-bit MAC number. */
export function macString(key: number): string {
  return key.toString(16).padStart(12, '0').replace(/(..)(?!$)/g, '$1:');
}

/**
 * MAC learning table of one switch: per VLAN, MAC → port, with ageing.
 * Entries older than the ageing time are ignored on lookup and reclaimed by sweep().
 */
export class MacTable<P extends MacPort> {
  /** VLAN id → (MAC → entry); two levels because MAC (48 bits) + VLAN (12) do not fit a double exactly. */
  private readonly vlans = new Map<number, Map<number, Entry<P>>>();
  private size = 0;

  /** ageingMs 0 = entries never age. maxEntries bounds memory under a MAC flood (beyond it, new MACs are not learned). */
  constructor(public ageingMs: number, private readonly maxEntries = 65536) {}

  /** Records that `mac` was seen on `port` in `vlan` at time `now` (ms). */
  learn(vlan: number, mac: number, port: P, now: number): void {
    let table = this.vlans.get(vlan);
    if (table === undefined) {
      table = new Map();
      this.vlans.set(vlan, table);
    }
    const e = table.get(mac);
    if (e !== undefined) {
      e.port = port;
      e.seen = now;
    } else if (this.size < this.maxEntries) {
      table.set(mac, { port, seen: now });
      this.size++;
    }
  }

  /** The port `mac` was last seen on in `vlan`, or null if unknown or aged out. */
  lookup(vlan: number, mac: number, now: number): P | null {
    const e = this.vlans.get(vlan)?.get(mac);
    if (e === undefined || (this.ageingMs > 0 && now - e.seen > this.ageingMs)) return null;
    return e.port;
  }

  /** Forgets every entry pointing at `port` (its NIO went away or its VLAN changed). */
  flushPort(port: P): void {
    for (const table of this.vlans.values()) {
      for (const [mac, e] of table) {
        if (e.port === port) {
          table.delete(mac);
          this.size--;
        }
      }
    }
  }

  /** Forgets every entry. */
  flushAll(): void {
    this.vlans.clear();
    this.size = 0;
  }

  /** Drops aged entries. */
  sweep(now: number): void {
    if (this.ageingMs <= 0) return;
    for (const [vlan, table] of this.vlans) {
      for (const [mac, e] of table) {
        if (now - e.seen > this.ageingMs) {
          table.delete(mac);
          this.size--;
        }
      }
      if (table.size === 0) this.vlans.delete(vlan);
    }
  }

  /** The live entries, sorted by VLAN then MAC, with their age in whole seconds. */
  entries(now: number): MacTableEntry[] {
    this.sweep(now);
    const out: MacTableEntry[] = [];
    for (const [vlan, table] of this.vlans) {
      for (const [mac, e] of table) {
        out.push({ mac: macString(mac), vlan, port: e.port.number, age: Math.floor((now - e.seen) / 1000) });
      }
    }
    // Fixed-width hex, so string order is numeric order.
    out.sort((a, b) => a.vlan - b.vlan || (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : 0));
    return out;
  }
}
