import { availableParallelism } from 'node:os';
import { DataplaneClient, type DataplaneLog } from './client.js';
import { loadNativeAddon } from './native-addon.js';
import type { DataplaneApi } from './types.js';

export * from './types.js';
export type { DataplaneLog } from './client.js';

export interface DataplaneOptions {
  /** `native` (the C addon), `js` (the TypeScript engine) or `auto`: native when built. Default: EMUCTL_DATAPLANE, else auto. */
  engine?: string;
  /** Native engine threads: independent nodes spread over them. Default: the machine's cores, at most 8. */
  threads?: number;
  /** Native engine: TAPs with virtio headers and TCP offloads (native/offload.c). Default: true. */
  offload?: boolean;
  /** tcpdump binary that compiles bpf filters (default: `tcpdump` on PATH). */
  tcpdump?: string;
  /** Worker script; tests substitute one. Default: worker.js next to this module. */
  workerUrl?: URL;
  /** Where worker deaths and restarts are reported (default: stderr). */
  log?: DataplaneLog;
}

const stderrLog: DataplaneLog = {
  info: (m) => process.stderr.write(`dataplane: ${m}\n`),
  warn: (m) => process.stderr.write(`dataplane: ${m}\n`),
  error: (m) => process.stderr.write(`dataplane: ${m}\n`),
};

/** Which engine a request names, and why: `native` is refused when the addon is not built. */
export function chooseEngine(requested = process.env.EMUCTL_DATAPLANE ?? 'auto'): { engine: 'js' | 'native'; reason: string } {
  if (requested === 'js') return { engine: 'js', reason: 'EMUCTL_DATAPLANE=js' };
  if (requested !== 'native' && requested !== 'auto' && requested !== '') throw new Error(`EMUCTL_DATAPLANE must be js, native or auto (got ${requested})`);
  const loaded = loadNativeAddon();
  if (loaded.addon) return { engine: 'native', reason: 'native addon built' };
  if (requested === 'native') throw new Error(`EMUCTL_DATAPLANE=native but the native dataplane cannot be used: ${loaded.reason}`);
  return { engine: 'js', reason: loaded.reason };
}

/** Starts the dataplane worker thread (supervised: restarted and rebuilt if it dies) and returns the API that drives it. */
export async function createDataplane(opts: DataplaneOptions = {}): Promise<DataplaneApi> {
  const { engine } = chooseEngine(opts.engine);
  const client = new DataplaneClient({
    config: { engine, threads: opts.threads ?? Math.max(1, Math.min(availableParallelism(), 8)), offload: opts.offload ?? true },
    workerUrl: opts.workerUrl ?? new URL('./worker.js', import.meta.url),
    tcpdump: opts.tcpdump,
    log: opts.log ?? stderrLog,
  });
  await client.start();
  return client;
}
