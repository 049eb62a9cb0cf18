import { GCProfiler, getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

/** One V8 isolate's heap (bytes): now, and as the last full (mark-compact) GC left it. */
export interface HeapFigures {
  used: number;
  total: number;
  physical: number;
  external: number;
  malloced: number;
  /** Used heap right after the latest mark-compact GC seen since watching began (undefined before the first). */
  afterMajorGc?: number;
  majorGcs: number;
  minorGcs: number;
  /** Used bytes per heap space (new, old, code, large objects ...). */
  spaces: Record<string, number>;
}

/**
 * Watches the garbage collections of the isolate it runs in (main thread or
 * worker): each `take()` reports the heap now and what the GCs since the
 * previous `take()` left behind, which tells live data from garbage not yet collected.
 */
export class HeapWatch {
  private profiler = new GCProfiler();
  private lastAfterMajor?: number;

  constructor() {
    this.profiler.start();
  }

  take(): HeapFigures {
    const { statistics } = this.profiler.stop() as { statistics: GcEntry[] };
    this.profiler.start();
    const majors = statistics.filter((s) => s.gcType === 'MarkSweepCompact');
    if (majors.length) this.lastAfterMajor = majors[majors.length - 1].afterGC.heapStatistics.usedHeapSize;
    const h = getHeapStatistics();
    const spaces: Record<string, number> = {};
    for (const s of getHeapSpaceStatistics()) if (s.space_size > 0) spaces[s.space_name.replace(/_space$/, '')] = s.space_used_size;
    return {
      used: h.used_heap_size,
      total: h.total_heap_size,
      physical: h.total_physical_size,
      external: h.external_memory,
      malloced: h.malloced_memory,
      afterMajorGc: this.lastAfterMajor,
      majorGcs: majors.length,
      minorGcs: statistics.length - majors.length,
      spaces,
    };
  }

  stop(): void {
    this.profiler.stop();
  }
}

interface GcEntry {
  gcType: string;
  afterGC: { heapStatistics: { usedHeapSize: number } };
}
