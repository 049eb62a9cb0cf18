/**
 * The dataplane worker thread: owns every UDP socket and capture file (or
 * drives the native engine's threads that do), and applies the main thread's
 * commands (protocol.ts), answering each one.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ConflictError, ForbiddenError, InsufficientStorageError, InvalidError, NotFoundError } from '../errors.js';
import { HeapWatch } from '../heap-watch.js';
import { Dataplane } from './dataplane.js';
import type { Engine } from './engine.js';
import { JsEngine } from './js-engine.js';
import { loadNativeAddon } from './native-addon.js';
import { NativeEngine } from './native-engine.js';
import type { ErrorKind, Reply, Request, WorkerConfig } from './protocol.js';

function kindOf(e: unknown): ErrorKind {
  if (e instanceof InvalidError) return 'invalid';
  if (e instanceof ForbiddenError) return 'forbidden';
  if (e instanceof NotFoundError) return 'notfound';
  if (e instanceof ConflictError) return 'conflict';
  if (e instanceof InsufficientStorageError) return 'storage';
  return 'internal';
}

function engineFor(config: WorkerConfig | undefined): Engine {
  if (config?.engine !== 'native') return new JsEngine();
  const loaded = loadNativeAddon();
  if (!loaded.addon) throw new Error(loaded.reason);
  return new NativeEngine(loaded.addon, config.threads, config.offload);
}

if (!parentPort) throw new Error('dataplane/worker.js must run in a worker thread');
const port = parentPort;
const dataplane = new Dataplane(engineFor(workerData as WorkerConfig | undefined), (event) => port.postMessage(event));
let heapWatch: HeapWatch | undefined;

port.on('message', (req: Request) => {
  if (req.op === 'crash') throw new Error('failpoint dataplane.worker.crash: simulated dataplane worker crash');
  if (req.op === 'heap') {
    heapWatch ??= new HeapWatch();
    port.postMessage({ id: req.id, ok: true, value: heapWatch.take() } satisfies Reply);
    return;
  }
  dataplane.handle(req).then(
    (value) => port.postMessage({ id: req.id, ok: true, value } satisfies Reply),
    (e: unknown) => port.postMessage({ id: req.id, ok: false, kind: kindOf(e), message: e instanceof Error ? e.message : String(e) } satisfies Reply),
  );
});
