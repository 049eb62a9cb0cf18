import { Transform, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { ConflictError, InvalidError, PayloadTooLargeError } from '../../errors.js';
import { dockerReason } from './docker-engine.js';

/** GNS3's `GET /v2/compute/docker/images`: one `{image: "name:tag"}` per tagged image, sorted. */
export async function listImages(docker: Docker): Promise<{ image: string }[]> {
  const images = await docker.listImages();
  const names = images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
  return [...new Set(names)].sort().map((image) => ({ image }));
}

/** A stream that passes at most `max` bytes on and fails with a 413 beyond. */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) done(new PayloadTooLargeError(`the image archive is over the upload limit of ${max} bytes (setting max_image_bytes)`));
      else done(null, chunk);
    },
  });
}

/**
 * `docker load` of an image archive (`docker save` output), offline. Answers the names (or ids)
 * Docker reports loaded; an archive Docker refuses is a 400 quoting it.
 */
export async function loadImages(docker: Docker, body: Readable, maxBytes: number): Promise<{ images: string[] }> {
  const limited = capped(maxBytes);
  let tooLarge: Error | undefined;
  body.on('error', (err) => limited.destroy(err));
  limited.on('error', (err) => (tooLarge = err));
  body.pipe(limited);
  let answer: NodeJS.ReadableStream;
  try {
    answer = await docker.loadImage(limited, { quiet: true });
  } catch (err) {
    if (tooLarge) throw tooLarge;
    throw new ConflictError(`Docker could not load the archive: ${dockerReason(err)}`);
  }
  let text = '';
  for await (const chunk of answer) text += chunk.toString();
  if (tooLarge) throw tooLarge;
  const images: string[] = [];
  for (const line of text.split('\n').filter((l) => l.trim())) {
    let message: { stream?: string; error?: string; errorDetail?: { message?: string } };
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.error) throw new InvalidError(`Docker refused the archive: ${message.errorDetail?.message ?? message.error}`);
    const loaded = /^Loaded image(?: ID)?: (\S+)/.exec(message.stream?.trim() ?? '');
    if (loaded) images.push(loaded[1]);
  }
  if (!images.length) throw new InvalidError('Docker loaded no image from the archive (is it `docker save` output?)');
  return { images };
}
