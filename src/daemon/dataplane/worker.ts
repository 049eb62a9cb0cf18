/**
 * The dataplane worker thread: owns every UDP socket and capture file, and
 * applies the main thread's commands (protocol.ts), answering each one.
 */
import { parentPort } from 'node:worker_threads';
import { ConflictError, InvalidError, NotFoundError } from '../errors.js';
import { Dataplane } from './dataplane.js';
import type { ErrorKind, Reply, Request } from './protocol.js';

function kindOf(e: unknown): ErrorKind {
  if (e instanceof InvalidError) return 'invalid';
  if (e instanceof NotFoundError) return 'notfound';
  if (e instanceof ConflictError) return 'conflict';
  return 'internal';
}

if (!parentPort) throw new Error('dataplane/worker.js must run in a worker thread');
const port = parentPort;
const dataplane = new Dataplane();

port.on('message', (req: Request) => {
  dataplane.handle(req).then(
    (value) => port.postMessage({ id: req.id, ok: true, value } satisfies Reply),
    (e: unknown) => port.postMessage({ id: req.id, ok: false, kind: kindOf(e), message: e instanceof Error ? e.message : String(e) } satisfies Reply),
  );
});
