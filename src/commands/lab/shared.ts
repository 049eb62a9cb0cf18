import { createReadStream } from 'node:fs';
import { UsageError } from '../../cli/errors.js';
import type { LabSpec } from '../../lab/model.js';
import { ByteCount } from '../../util/byte-limit.js';

/** A lab file is text a person writes: 4 MiB holds thousands of nodes, and a bigger one is a mistake or an attack. */
const MAX_LAB_FILE_BYTES = 4 * 1024 * 1024;

/** Reads and checks a lab file (a mistake in it is a usage error naming FILE:LINE:COL); `env` fills `${VAR}` in images. */
export async function readLabFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<LabSpec> {
  let text: string;
  try {
    text = await readCapped(path, MAX_LAB_FILE_BYTES);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read lab file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message}`);
  }
  const { parseLab } = await import('../../lab/parse.js');
  return parseLab(text, path, env);
}

/** The file's text, read up to `limit` bytes (a pipe such as `<(make-lab)` too); more is a UsageError, so `/dev/zero` ends. */
async function readCapped(path: string, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  const count = new ByteCount(limit, () => new UsageError(`cannot read lab file ${path}: it is over the ${limit}-byte limit of a lab file`));
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) {
    count.add(chunk as Buffer);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** True when `ref` names a lab file rather than a project: it ends in .yml/.yaml/.json or holds a `/`. */
export function isLabFile(ref: string): boolean {
  return /\.(ya?ml|json)$/i.test(ref) || ref.includes('/');
}

/** `FILE|NAME`: the lab file read (when a file is named) and the project name it gives. */
export async function labTarget(ref: string, env: NodeJS.ProcessEnv = process.env): Promise<{ name: string; spec?: LabSpec }> {
  if (!isLabFile(ref)) return { name: ref };
  const spec = await readLabFile(ref, env);
  return { name: spec.name, spec };
}
