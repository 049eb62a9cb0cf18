/** Something kept in the topology file as one entry whose JSON is cached until it changes. */
export interface TopologyEntry {
  /** Marks the entry as changed: the next write serialises it again. */
  touch(): void;
  /** `,` and the entry's JSON, UTF-8 (a list drops the first comma). */
  topologyBytes(): Buffer;
}

/**
 * The one topology cache of nodes, links and drawings: an entry's JSON is serialised once and kept
 * until `touch()` says it changed, so a topology write re-serialises only what changed.
 */
export abstract class CachedTopologyEntry implements TopologyEntry {
  private topologyCache?: Buffer;

  /** The entry as the .gns3 topology file keeps it. */
  abstract toTopology(): Record<string, unknown>;

  /** Marks the entry as changed: the next topology write serialises it again. */
  touch(): void {
    this.topologyCache = undefined;
  }

  /** `,` and the topology entry as JSON, kept until the next change. */
  topologyBytes(): Buffer {
    return (this.topologyCache ??= Buffer.from(`,${JSON.stringify(this.toTopology())}`));
  }
}
