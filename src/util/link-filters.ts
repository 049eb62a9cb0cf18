// Link filters as GNS3 names them: one type for the client (what a server reports and takes) and
// the daemon (what its API checks and its dataplane runs). Types only: no code of either layer.

/**
 * GNS3 link filters. Each value is the GNS3 parameter list; a missing filter,
 * an empty list or a first value of 0 means off.
 *  - frequency_drop [N]: -1 drops all, N drops every Nth frame
 *  - packet_loss [percent 0-100]
 *  - delay [latency_ms, jitter_ms]
 *  - corrupt [percent 0-100]
 *  - bpf [expressions separated by newlines]: drop frames matching any
 *  - rate [kbit/s]: shape to that bandwidth (emuctl extension)
 *  - duplicate [percent 0-100] (emuctl extension)
 */
export interface LinkFilters {
  frequency_drop?: number[];
  packet_loss?: number[];
  delay?: number[];
  corrupt?: number[];
  bpf?: string[];
  rate?: number[];
  duplicate?: number[];
}

/** Filters as a server reports them: the known ones, and any other a GNS3 server may hold. */
export type ReportedLinkFilters = LinkFilters & { [filter: string]: unknown[] | undefined };
