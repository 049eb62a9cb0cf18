import type Docker from 'dockerode';
import { buildHint } from '../../../offline-images/names.js';
import { ConflictError } from '../../errors.js';
import { dockerReason } from './docker-engine.js';

/** One line of Docker's pull progress (JSON lines from POST /images/create). */
interface PullEvent {
  status?: string;
  id?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string };
}

/** At most one progress message per layer state change, and byte counts at most this often. */
const PROGRESS_EVERY_MS = 1000;

/**
 * Pulls an image the engine does not have from its registry, as GNS3 does at node creation, telling
 * `progress` what happens (layers and bytes, throttled). A registry that cannot be reached, or does
 * not have the image, is a 409 quoting Docker.
 */
export async function pullImage(docker: Docker, image: string, progress: (message: string) => void): Promise<void> {
  progress(`Pulling '${image}' from its registry`);
  const hint = buildHint(image);
  const remedy = hint ? `build it with ${hint} (offline, on the compute's machine), or load it with emuctl image import FILE.tar` : 'load it with emuctl image import FILE.tar, or docker load';
  const failure = (reason: string) => new ConflictError(`Docker image ${image} is not on this compute and could not be pulled (${reason}): ${remedy}`);
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.pull(image);
  } catch (err) {
    throw failure(dockerReason(err));
  }
  let last = 0;
  const events: PullEvent[] = await new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, output: PullEvent[]) => (err ? reject(failure(err.message)) : resolve(output)), (event: PullEvent) => {
      const bytes = event.progressDetail?.total ? ` ${event.progressDetail.current ?? 0}/${event.progressDetail.total} bytes` : '';
      if (bytes && Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      if (event.status) progress(`Pulling '${image}': ${event.id ? `${event.id} ` : ''}${event.status}${bytes}`);
    });
  });
  const error = events.find((e) => e.error || e.errorDetail);
  if (error) throw failure(error.errorDetail?.message ?? error.error ?? 'unknown error');
  progress(`Pulled '${image}'`);
}
