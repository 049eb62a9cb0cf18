import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { ConflictError, DomainError, InvalidError } from '../errors.js';
import { makeDirs, openForWrite, openNew } from '../safe-fs.js';

/** One file of an archive to write: from a file on disk, from memory, or from a stream opened when its turn comes. */
export type ZipSource = { name: string; path: string } | { name: string; data: Buffer } | { name: string; open: () => Promise<Readable> };

/** ZIP dates start in 1980: older files get that date (GNS3 patches mtimes the same way). */
const EARLIEST = new Date('1980-01-02T00:00:00Z');
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Streams a ZIP archive of `sources` (yazl), deflated or stored. */
export function zipStream(sources: ZipSource[], compress: boolean, mtimeOf: (source: ZipSource) => Date = () => new Date()): Readable {
  const zip = new yazl.ZipFile();
  for (const source of sources) {
    const mtime = new Date(Math.max(mtimeOf(source).getTime(), EARLIEST.getTime()));
    if ('path' in source) zip.addFile(source.path, source.name, { compress, mtime });
    else if ('open' in source) zip.addReadStreamLazy(source.name, { compress, mtime }, (done) => void source.open().then((s) => done(null, s), (err: Error) => done(err, undefined as never)));
    else zip.addBuffer(source.data, source.name, { compress, mtime });
  }
  // yazl reports a source that cannot be read on the ZipFile, not on its stream: pass it on, so readers end.
  zip.on('error', (err: Error) => (zip.outputStream as Readable).destroy(err));
  zip.end();
  return zip.outputStream as Readable;
}

/**
 * The entry name as a safe relative path: forward slashes, no absolute path, drive letter,
 * `..` segment or NUL (a zip-slip attempt is a 400). Directories end with `/`.
 */
export function safeEntryName(raw: string): string {
  const name = raw.replace(/\\/g, '/');
  const segments = name.split('/');
  if (name.includes('\0') || name.startsWith('/') || /^[A-Za-z]:/.test(name) || segments.includes('..')) {
    throw new InvalidError(`archive entry '${raw.replace(/\0/g, '\\0')}' escapes the project directory`);
  }
  return segments.filter((s) => s !== '' && s !== '.').join('/') + (name.endsWith('/') ? '/' : '');
}

/** The entry names of a ZIP file, checked; a file that is not a ZIP is a 409 (as GNS3 answers). */
export async function zipEntryNames(file: string): Promise<string[]> {
  const names: string[] = [];
  await eachEntry(file, async (name) => {
    names.push(name);
  });
  return names;
}

/**
 * Extracts a ZIP file into `dir`. Every entry name is checked before anything is written; links
 * and entries that would land outside `dir` are refused (400). Existing files are replaced only
 * with `overwrite` (a snapshot restored over its project).
 */
export async function extractZip(file: string, dir: string, { overwrite = false } = {}): Promise<void> {
  await zipEntryNames(file);
  await eachEntry(file, async (name, open) => {
    // Written below `dir` with no link followed (403), private (0700 / 0600).
    if (name.endsWith('/')) return void (await makeDirs(dir, name));
    const target = overwrite ? await openForWrite(dir, name) : await openNew(dir, name);
    await pipeline(await open(), target.createWriteStream());
  });
}

/** Calls `visit` for each entry, in order, with its checked name and a way to read its data. */
async function eachEntry(file: string, visit: (name: string, open: () => Promise<Readable>) => Promise<void>): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { decodeStrings: false, strictFileNames: false });
  } catch (err) {
    throw new ConflictError(`Cannot import project, not a GNS3 project (invalid zip): ${(err as Error).message}`);
  }
  try {
    for await (const entry of zip.eachEntry()) {
      const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
      const name = safeEntryName(raw);
      if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw new InvalidError(`archive entry '${raw}' is a symbolic link`);
      if (name === '' || name === '/') continue;
      await visit(name, () => zip.openReadStreamPromise(entry));
    }
  } catch (err) {
    // Errors of our own or of the file system (disk full…) stay as they are; the rest come from a broken archive.
    if (err instanceof DomainError || (err as NodeJS.ErrnoException).syscall) throw err;
    throw new ConflictError(`Cannot extract files from the archive (invalid zip): ${(err as Error).message}`);
  } finally {
    zip.close();
  }
}
