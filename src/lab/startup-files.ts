import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { ByteCount } from '../util/byte-limit.js';
import { LabFileError } from './locate.js';
import type { LabSpec, StartupFile } from './model.js';

/** A startup file is a configuration a person writes: 1 MiB each, 16 MiB for a whole lab. */
export const MAX_STARTUP_FILE_BYTES = 1024 * 1024;
export const MAX_STARTUP_FILES_BYTES = 16 * 1024 * 1024;

/**
 * Reads the text of every docker node's startup file (`files:`), from the lab file's directory
 * and nowhere else: a lab file is untrusted input, so a source that resolves (through a link
 * anywhere on its way) outside that directory, or is not a regular file, or is over the size
 * limit, or is not UTF-8 text, is a LabFileError at its line. Fills in `text` and returns the spec.
 */
export async function readStartupFiles(spec: LabSpec): Promise<LabSpec> {
  // Generated files (device nodes) come with their text.
  const files = spec.nodes.flatMap((n) => n.files ?? []).filter((f) => f.text === undefined);
  if (!files.length) return spec;
  const root = await realpath(dirname(resolve(spec.file)));
  const total = new ByteCount(MAX_STARTUP_FILES_BYTES, () => new LabFileError(spec.file, files[0].pos, `the startup files are over ${MAX_STARTUP_FILES_BYTES} bytes together`));
  for (const file of files) {
    file.text = await readOne(spec.file, root, file);
    total.add(Buffer.from(file.text));
  }
  return spec;
}

async function readOne(labFile: string, root: string, file: StartupFile): Promise<string> {
  const fail = (reason: string) => new LabFileError(labFile, file.pos, `files: ${file.path}: ${file.source} ${reason}`);
  let real: string;
  try {
    real = await realpath(resolve(root, file.source));
  } catch (err) {
    throw fail((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist (sources are relative to the lab file)' : `cannot be read: ${(err as Error).message}`);
  }
  if (!real.startsWith(root + sep)) throw fail("leads outside the lab file's directory (through a symbolic link)");
  // O_NOFOLLOW: a link swapped in after the check above is refused, not followed.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: Error) => {
    throw fail(`cannot be read: ${err.message}`);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw fail('is not a regular file');
    if (stats.size > MAX_STARTUP_FILE_BYTES) throw fail(`is ${stats.size} bytes, over the ${MAX_STARTUP_FILE_BYTES}-byte limit of a startup file`);
    const bytes = await handle.readFile();
    if (bytes.length > MAX_STARTUP_FILE_BYTES) throw fail(`grew over the ${MAX_STARTUP_FILE_BYTES}-byte limit of a startup file`);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw fail('is not UTF-8 text');
    }
  } finally {
    await handle.close();
  }
}
