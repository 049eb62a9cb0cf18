import { readFileSync } from 'node:fs';
import { HeapWatch, type HeapFigures } from './heap-watch.js';
import type { Logger } from './logger.js';

/**
 * The memory log (setting memoryLogSeconds): one line every interval with the
 * process's RSS split into anonymous and file-backed pages, the main thread's
 * V8 heap (used, committed, used after the latest full GC, per space), its
 * external memory, and the dataplane worker's heap. What RSS holds outside
 * both heaps (`outside_heaps`) is native: malloc arenas, thread stacks, code.
 * Figures in MB, as key=value pairs.
 */
export function startMemoryLog(opts: { seconds: number; log: Logger; workerHeap?: () => Promise<HeapFigures> }): () => void {
  const main = new HeapWatch();
  const timer = setInterval(() => {
    void line(main.take(), opts.workerHeap).then((text) => opts.log.info(text), (err) => opts.log.warn(`memory log: ${(err as Error).message}`));
  }, opts.seconds * 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    main.stop();
  };
}

async function line(main: HeapFigures, workerHeap?: () => Promise<HeapFigures>): Promise<string> {
  const worker = await workerHeap?.().catch(() => undefined);
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const mem = process.memoryUsage();
  const rss = kb('VmRSS');
  const fields: [string, number | undefined][] = [
    ['rss', rss], ['rss_anon', kb('RssAnon')], ['rss_file', kb('RssFile')],
    ...heapFields('main', main),
    ['array_buffers', mem.arrayBuffers],
    ...(worker ? heapFields('worker', worker) : []),
    ['outside_heaps', rss - main.physical - (worker?.physical ?? 0)],
  ];
  const mb = (n: number) => (n / 1048576).toFixed(1);
  return `memory ${fields.filter(([, v]) => v !== undefined && !Number.isNaN(v)).map(([k, v]) => `${k}=${mb(v!)}`).join(' ')} main_gcs=${main.majorGcs}/${main.minorGcs}${worker ? ` worker_gcs=${worker.majorGcs}/${worker.minorGcs}` : ''}`;
}

function heapFields(who: string, h: HeapFigures): [string, number | undefined][] {
  return [
    [`${who}_used`, h.used], [`${who}_total`, h.total], [`${who}_physical`, h.physical], [`${who}_after_gc`, h.afterMajorGc],
    [`${who}_external`, h.external], [`${who}_malloced`, h.malloced],
    ...Object.entries(h.spaces).map(([space, used]): [string, number] => [`${who}_${space}`, used]),
  ];
}
