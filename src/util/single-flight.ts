/**
 * "Get or create" on an async path, one at a time per key: while a creation for a key is under way,
 * every other caller for that key waits for the same promise instead of starting a second one.
 */
export class SingleFlight<K, V> {
  private readonly inFlight = new Map<K, Promise<V>>();

  /** Runs `create` for `key` unless one is already running, whose result is shared. */
  run(key: K, create: () => Promise<V>): Promise<V> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const started = Promise.resolve().then(create).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
